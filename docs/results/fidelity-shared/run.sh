#!/bin/bash
# The fidelity bench on its ten default graphs and two ONNX exports it was not tuned on
# (EfficientNet-B0 and a GRU language model of data/onnx_corpus), one graph per run,
# GO's plan as optimize --verify 5 keeps it:
#   bash run.sh GRAPHOPT_BINARY OUT_DIR [DATA_DIR]      (about 30 minutes)
# then: python3 summary.py OUT_DIR (from this folder). Resumable: a graph whose .json
# exists is not run again.
set -e
bin=$1 out=$2 data=${3:-$(dirname "$0")/../../../../shared/data}
repo=$(cd "$(dirname "$0")/../../.." && pwd)
models=("rnnlm:layers=2,batch=16,steps=10,hidden=256,vocab=2000" "gnmt:layers=2,batch=16,steps=8,hidden=256,vocab=2000" "transformer_xl:layers=2,batch=4,segment=64,memory=64,model=256,heads=4,inner=512,vocab=2000,segments=2" "wavenet:stacks=1,layers=6,batch=4,length=1024,channels=32,skip=64,quantization=64" "inception_v3:batch=2,image=149,classes=100" "amoebanet:cells=2,filters=16,batch=2,image=96,classes=100"
        "$data/onnx/squeezenet1_1.onnx" "$data/onnx/lstm_lm.onnx" "$data/onnx/resnet50.onnx" "$data/onnx/transformer_seq2seq.onnx"
        "$repo/data/onnx_corpus/efficientnet_b0.onnx" "$repo/data/onnx_corpus/gru_lm.onnx")
mkdir -p "$out"
for i in "${!models[@]}"; do
  [ -f "$out/$i.json" ] && continue
  echo "$(date +%T) ${models[$i]}"
  "$bin" bench --fidelity --models "${models[$i]}" --go-time 10 --go-verify 5 --force --out "$out/$i.json" > "$out/$i.log" 2>&1
done
echo "$(date +%T) done"
