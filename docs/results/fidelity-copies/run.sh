#!/bin/bash
# The fidelity bench on its six default graphs, two binaries alternating graph by graph so
# that the machine's state of the moment falls on both alike:
#   bash run.sh BEFORE_BINARY AFTER_BINARY OUT_DIR      (about 8 minutes)
# then: cd OUT_DIR && python3 summary.py (from this folder)
set -e
before=$1 after=$2 out=$3
models=("rnnlm:layers=2,batch=16,steps=10,hidden=256,vocab=2000" "gnmt:layers=2,batch=16,steps=8,hidden=256,vocab=2000" "transformer_xl:layers=2,batch=4,segment=64,memory=64,model=256,heads=4,inner=512,vocab=2000,segments=2" "wavenet:stacks=1,layers=6,batch=4,length=1024,channels=32,skip=64,quantization=64" "inception_v3:batch=2,image=149,classes=100" "amoebanet:cells=2,filters=16,batch=2,image=96,classes=100")
mkdir -p "$out/before" "$out/after"
for i in "${!models[@]}"; do
  for b in before after; do
    [ -f "$out/$b/$i.json" ] && continue   # resumable
    if [ $b = before ]; then g=$before; else g=$after; fi
    echo "$(date +%T) $b ${models[$i]}"
    "$g" bench --fidelity --models "${models[$i]}" --go-time 10 --force --out "$out/$b/$i.json" > "$out/$b/$i.log" 2>&1
  done
done
