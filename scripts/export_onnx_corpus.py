#!/usr/bin/python3
"""Exports the ONNX corpus that `graphopt inspect --check` imports.

Run by hand with Debian's Python and packages (python3-torch, python3-torchvision,
python3-onnx), never at test time:

    /usr/bin/python3 scripts/export_onnx_corpus.py                 # every model
    /usr/bin/python3 scripts/export_onnx_corpus.py --only vit_b_16,gpt_dynamic
    /usr/bin/python3 scripts/export_onnx_corpus.py --list
    /usr/bin/python3 scripts/export_onnx_corpus.py --missing              # only models not in the manifest

Each model is built with random weights (nothing is downloaded), exported, and
written without its weights: every float initializer larger than a handful of
elements keeps its name, type and dims but points at an external weights file that
is not written, so the files stay small. Integer initializers stay inline (they hold
shapes and indices).

For every model the manifest (manifest.json in the output folder) records:
  params_exporter  elements of all initializers of the exported file, counted here
                   from the file itself (what the importer must report exactly);
  params_torch     elements of the module's parameters (informative: the exporter
                   folds BatchNorm into Conv and drops or adds constants);
  macs             multiply-accumulates of one forward pass counted here,
                   independently of ONNX: every matrix product and convolution kernel
                   PyTorch runs (mm, addmm, bmm, baddbmm, convolution) at the
                   recorded input sizes;
  dims             the symbolic dimensions to bind (--dim) for dynamic-axis models;
  expect_refusal   for a model the importer refuses on purpose (control flow), the
                   words its error must contain.
"""
import argparse
import json
import math
import os
import sys
import tempfile
import time
import traceback

import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torch.utils._python_dispatch import TorchDispatchMode

# Float initializers with at most this many elements stay inline (scalars of the
# computation, e.g. the attention scale); larger ones are stripped.
KEEP_INLINE_FLOAT = 16


class MacCounter(TorchDispatchMode):
    """Counts the multiply-accumulates of the matrix products and convolutions
    PyTorch executes (below autograd, so composite ops are seen decomposed)."""

    def __init__(self):
        super().__init__()
        self.macs = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = func.overloadpacket.__name__
        if name == "mm":
            a, b = args[0], args[1]
            self.macs += a.shape[0] * a.shape[1] * b.shape[1]
        elif name == "addmm":
            a, b = args[1], args[2]
            self.macs += a.shape[0] * a.shape[1] * b.shape[1]
        elif name == "bmm":
            a, b = args[0], args[1]
            self.macs += a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]
        elif name == "baddbmm":
            a, b = args[1], args[2]
            self.macs += a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]
        elif name in ("mv", "addmv", "dot"):
            raise RuntimeError("MAC counter: unhandled product " + name)
        elif name in ("convolution", "_convolution"):
            x, w = args[0], args[1]
            transposed = bool(args[6])
            per = math.prod(w.shape[1:])
            self.macs += (x.numel() if transposed else out.numel()) * per
        return out


def count_macs(model, inputs):
    counter = MacCounter()
    # Autograd on: the fused inference fast paths of nn.MultiheadAttention and the
    # transformer layers stay off, so every product is its own kernel.
    with torch.enable_grad(), counter:
        model(*inputs)
    return counter.macs


# ---------------------------------------------------------------- torch.nn models


class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // self.heads))
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool, device=x.device), diagonal=1)
        att = att.masked_fill(mask, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        return self.proj(y)


class GptBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class Gpt(nn.Module):
    """A GPT-2-style causal decoder: token and position embeddings, pre-norm blocks,
    an untied output projection."""

    def __init__(self, vocab=50257, ctx=1024, d=768, heads=12, layers=12):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList([GptBlock(d, heads) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        t = idx.shape[1]
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))


class RecurrentLm(nn.Module):
    def __init__(self, cell, vocab=10000, d=650, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.rnn = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn": nn.RNN}[cell](d, d, layers)
        self.dec = nn.Linear(d, vocab)

    def forward(self, x):
        y, _ = self.rnn(self.emb(x))
        return self.dec(y)


class BiLstmTagger(nn.Module):
    def __init__(self, vocab=20000, d=256, tags=20):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.rnn = nn.LSTM(d, d, 2, bidirectional=True)
        self.out = nn.Linear(2 * d, tags)

    def forward(self, x):
        y, _ = self.rnn(self.emb(x))
        return self.out(y)


def gelu_fn(x):
    # A plain function: keeps the fused inference fast path of the layers off.
    return F.gelu(x)


class EncoderModel(nn.Module):
    """A BERT-style encoder: embeddings, nn.TransformerEncoder, a pooler."""

    def __init__(self, vocab=30522, d=768, heads=12, layers=12, ctx=512):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(ctx, 1, d))
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.1, activation=gelu_fn)
        self.enc = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.pool = nn.Linear(d, d)

    def forward(self, x):  # x: [seq, batch]
        h = self.tok(x) + self.pos[: x.shape[0]]
        return torch.tanh(self.pool(self.enc(h)[0]))


class Seq2Seq(nn.Module):
    def __init__(self, vocab=32000, d=512, heads=8, layers=6):
        super().__init__()
        self.src = nn.Embedding(vocab, d)
        self.tgt = nn.Embedding(vocab, d)
        self.tr = nn.Transformer(d, heads, layers, layers, 4 * d, dropout=0.1, activation=gelu_fn)
        self.out = nn.Linear(d, vocab)

    def forward(self, s, t):
        mask = self.tr.generate_square_subsequent_mask(t.shape[0])
        return self.out(self.tr(self.src(s), self.tgt(t), tgt_mask=mask))


class DecoderOnly(nn.Module):
    def __init__(self, d=512, heads=8, layers=6):
        super().__init__()
        layer = nn.TransformerDecoderLayer(d, heads, 4 * d, activation=gelu_fn, norm_first=True)
        self.dec = nn.TransformerDecoder(layer, layers)

    def forward(self, x, memory):
        return self.dec(x, memory)


# ---------------------------------------------------------------- the corpus


def tv(name, shape=(1, 3, 224, 224), **kwargs):
    """A torchvision model by name, with its input shape."""

    def build():
        return torchvision.models.get_model(name, weights=None, **kwargs), (torch.randn(*shape),)

    return build


def tokens(vocab, *shape):
    return torch.randint(0, vocab, shape)


# Every classification, segmentation and video model of torchvision, but those that
# do not export with torch 1.13 or take too much memory to:
NOT_EXPORTED = {
    # aten::zero has no ONNX export in torch 1.13.
    "swin_v2_t": "aten::zero has no ONNX export", "swin_v2_s": "aten::zero has no ONNX export",
    "swin_v2_b": "aten::zero has no ONNX export",
    # Its export needs more than 20 GB of memory.
    "mvit_v2_s": "the export needs more than 20 GB of memory",
}
CLASSIFICATION = [n for n in torchvision.models.list_models(module=torchvision.models) if n not in NOT_EXPORTED]
SEGMENTATION = [n for n in torchvision.models.list_models(module=torchvision.models.segmentation)
                if n not in NOT_EXPORTED]
VIDEO = [n for n in torchvision.models.list_models(module=torchvision.models.video) if n not in NOT_EXPORTED]


def corpus():
    models = {}
    for n in CLASSIFICATION:
        if n == "inception_v3":
            models[n] = {"build": tv(n, (1, 3, 299, 299), aux_logits=False, init_weights=False), "opset": 13}
            continue
        kwargs = {"aux_logits": False, "init_weights": False} if n == "googlenet" else {}
        models[n] = {"build": tv(n, **kwargs), "opset": 13}
    for n in SEGMENTATION:
        kwargs = {"weights_backbone": None}
        if n != "lraspp_mobilenet_v3_large":
            kwargs["aux_loss"] = False
        models[n] = {"build": tv(n, (1, 3, 224, 224), **kwargs), "opset": 13}
    for n in VIDEO:
        shape = (1, 3, 16, 224, 224) if n.startswith("mvit") or n == "s3d" else (1, 3, 16, 112, 112)
        models[n] = {"build": tv(n, shape), "opset": 13}
    # torch.tensor_split in MViT's attention pooling exports as 38 Loop nodes that
    # fill tensor sequences; the importer refuses sequences and loops (their length
    # and trip count are not known at import time), and the corpus check expects it.
    models["mvit_v1_b"]["expect_refusal"] = "tensor sequences are not imported"

    # The two GPT exports skip constant folding, which would fold different parts of
    # the fixed-size and the dynamic graph (the causal mask, the position lookup):
    # so the two must give the same ops and MACs once the sizes are bound.
    models["gpt_fixed"] = {
        "build": lambda: (Gpt(), (tokens(50257, 2, 64),)), "opset": 14, "fold": False,
        "note": "GPT-2-style decoder (12 layers, d 768) at batch 2, sequence 64"}
    models["gpt_dynamic"] = {
        "build": lambda: (Gpt(), (tokens(50257, 1, 16),)), "opset": 14, "fold": False,
        "dynamic_axes": {"idx": {0: "batch", 1: "seq"}}, "input_names": ["idx"],
        "dims": {"batch": 2, "seq": 64},
        "note": "the same decoder with dynamic batch and sequence axes; counted at batch 2, sequence 64"}
    models["gpt_small_opset17"] = {
        "build": lambda: (Gpt(layers=6, d=512, heads=8), (tokens(50257, 4, 128),)), "opset": 17,
        "note": "a 6-layer GPT-style decoder exported at opset 17 (LayerNormalization op)"}
    # nn.TransformerEncoder and nn.TransformerDecoder deep-copy one layer, so every
    # layer starts with the same weights, and the exporter stores identical
    # initializers once: "distinct" gives each parameter its own values first, so
    # the file holds every layer's weights as a trained model's would.
    models["bert_encoder"] = {
        "build": lambda: (EncoderModel(), (tokens(30522, 128, 2),)), "opset": 13, "distinct": True,
        "note": "BERT-style nn.TransformerEncoder, 12 layers, sequence 128, batch 2"}
    models["bert_encoder_dynamic"] = {
        "build": lambda: (EncoderModel(layers=4), (tokens(30522, 32, 1),)), "opset": 17, "distinct": True,
        "dynamic_axes": {"x": {0: "seq", 1: "batch"}}, "input_names": ["x"], "dims": {"seq": 256, "batch": 4},
        "note": "4-layer encoder with dynamic axes, opset 17; counted at sequence 256, batch 4"}
    models["transformer_seq2seq"] = {
        "build": lambda: (Seq2Seq(), (tokens(32000, 64, 2), tokens(32000, 48, 2))), "opset": 14,
        "note": "nn.Transformer 6+6 layers with embeddings and a causal target mask"}
    models["transformer_decoder"] = {
        "build": lambda: (DecoderOnly(), (torch.randn(32, 4, 512), torch.randn(40, 4, 512))), "opset": 13,
        "distinct": True,
        "note": "nn.TransformerDecoder, 6 pre-norm layers"}
    models["lstm_lm"] = {
        "build": lambda: (RecurrentLm("lstm"), (tokens(10000, 35, 20),)), "opset": 13,
        "note": "2-layer LSTM language model (d 650), 35 steps, batch 20"}
    models["gru_lm"] = {
        "build": lambda: (RecurrentLm("gru"), (tokens(10000, 35, 20),)), "opset": 13,
        "note": "2-layer GRU language model"}
    models["rnn_lm"] = {
        "build": lambda: (RecurrentLm("rnn", d=512), (tokens(10000, 35, 20),)), "opset": 13,
        "note": "2-layer tanh RNN language model"}
    models["bilstm_tagger"] = {
        "build": lambda: (BiLstmTagger(), (tokens(20000, 50, 8),)), "opset": 13,
        "note": "2-layer bidirectional LSTM tagger"}
    return models


def strip_weights(model, weights_name):
    """Points every float initializer above KEEP_INLINE_FLOAT elements at an external
    file that is not written; returns the element count of all initializers."""
    total = 0
    offset = 0
    for t in model.graph.initializer:
        n = math.prod(t.dims) if len(t.dims) else 1
        total += n
        is_float = t.data_type in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE,
                                   onnx.TensorProto.BFLOAT16)
        if not is_float or n <= KEEP_INLINE_FLOAT:
            continue
        length = n * {onnx.TensorProto.FLOAT: 4, onnx.TensorProto.DOUBLE: 8}.get(t.data_type, 2)
        t.ClearField("raw_data")
        t.ClearField("float_data")
        t.ClearField("double_data")
        t.ClearField("int32_data")
        t.data_location = onnx.TensorProto.EXTERNAL
        del t.external_data[:]
        for k, v in (("location", weights_name), ("offset", str(offset)), ("length", str(length))):
            e = t.external_data.add()
            e.key = k
            e.value = v
        offset += length
    return total


def export_one(name, spec, out_dir):
    torch.manual_seed(0)
    module, inputs = spec["build"]()
    module.eval()
    if spec.get("distinct"):
        with torch.no_grad():
            for p in module.parameters():
                p.add_(torch.randn_like(p) * 1e-3)
    params_torch = sum(p.numel() for p in module.parameters())
    count_inputs = inputs
    if "dims" in spec:
        # Count at the bound sizes: rebuild the inputs with the named dims.
        axes = spec["dynamic_axes"]
        new = []
        for arg, input_name in zip(inputs, spec["input_names"]):
            shape = list(arg.shape)
            for axis, dim in axes.get(input_name, {}).items():
                shape[axis] = spec["dims"][dim]
            new.append(torch.randint(0, 100, shape) if arg.dtype == torch.long else torch.randn(*shape))
        count_inputs = tuple(new)
    macs = count_macs(module, count_inputs)
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        # Exported with autograd on, as a user would: under no_grad the attention layers
        # take fused inference kernels that have no ONNX export. Exported to a file, so
        # that a model above 2 GB goes to the external-data format, whose data is not read.
        torch.onnx.export(module, inputs, os.path.join(tmp, "model.onnx"), opset_version=spec["opset"],
                          do_constant_folding=spec.get("fold", True), input_names=spec.get("input_names"),
                          dynamic_axes=spec.get("dynamic_axes"))
        export_s = time.time() - start
        model = onnx.load(os.path.join(tmp, "model.onnx"), load_external_data=False)
    params_exporter = strip_weights(model, name + ".weights")
    path = os.path.join(out_dir, name + ".onnx")
    onnx.save(model, path)
    op_types = sorted({n.op_type for n in model.graph.node})
    entry = {
        "name": name,
        "file": name + ".onnx",
        "opset": spec["opset"],
        "nodes": len(model.graph.node),
        "params_exporter": params_exporter,
        "params_torch": params_torch,
        "macs": macs,
        "inputs": [list(x.shape) for x in count_inputs],
        "op_types": op_types,
        "bytes": os.path.getsize(path),
        "export_seconds": round(export_s, 2),
    }
    if "dims" in spec:
        entry["dims"] = spec["dims"]
    if "note" in spec:
        entry["note"] = spec["note"]
    if "expect_refusal" in spec:
        entry["expect_refusal"] = spec["expect_refusal"]
    return entry


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "data", "onnx_corpus"))
    parser.add_argument("--only", default="", help="comma-separated model names")
    parser.add_argument("--list", action="store_true", help="list the model names and exit")
    parser.add_argument("--missing", action="store_true", help="only the models the manifest does not list yet")
    args = parser.parse_args()
    models = corpus()
    if args.list:
        print("\n".join(models))
        return 0
    names = [n for n in args.only.split(",") if n] or list(models)
    manifest_path = os.path.join(args.out, "manifest.json")
    if args.missing and os.path.exists(manifest_path):
        with open(manifest_path) as f:
            listed = {m["name"] for m in json.load(f)["models"]}
        names = [n for n in names if n not in listed]
    unknown = [n for n in names if n not in models]
    if unknown:
        print("unknown model(s): " + ", ".join(unknown), file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    manifest = {"format": "graphopt-onnx-corpus", "version": 1, "exporter": "torch " + torch.__version__ +
                ", torchvision " + torchvision.__version__ + ", onnx " + onnx.__version__, "models": []}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest["models"] = json.load(f)["models"]
    failures = []
    for name in names:
        start = time.time()
        try:
            entry = export_one(name, models[name], args.out)
        except Exception as e:  # a model that does not export is reported, not fatal
            failures.append(name)
            print("%-28s FAILED: %s" % (name, str(e).splitlines()[0] if str(e) else type(e).__name__), flush=True)
            traceback.print_exc(limit=2)
            continue
        manifest["models"] = [m for m in manifest["models"] if m["name"] != name] + [entry]
        manifest["models"].sort(key=lambda m: list(models).index(m["name"]) if m["name"] in models else 1 << 30)
        tmp = manifest_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(manifest, f, indent=1)
        os.replace(tmp, manifest_path)
        print("%-28s %6d nodes %12d params %16d MACs %8d bytes %6.1f s" % (
            name, entry["nodes"], entry["params_exporter"], entry["macs"], entry["bytes"], time.time() - start),
            flush=True)
    if failures:
        print("did not export: " + ", ".join(failures), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
