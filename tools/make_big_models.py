#!/usr/bin/env python3
"""make_big_models.py OUT_DIR [NAME...]: full-size models as case folders for the latency benchmark.

Run through real PyTorch (tools/bench_latency.sh --big does): from the repository root,
  ../shared/tools/torch-env run 2.14 python3 tools/make_big_models.py build/big-models
Writes OUT_DIR/NAME/ as ../shared/tools/gen2/caselib.py lays a case out (graph.txt, weights,
model.pt2, io.safetensors with PyTorch's outputs, case.json) for ResNet-50 and ViT-B/16
(torchvision, 224x224, batch 1), a 12-layer BERT (transformers' BertConfig defaults:
bert-base, sequence 128, batch 1) and a 16-layer, 1024-wide Llama (LlamaForCausalLM, 4 key/value
heads, MLP 2816, sequence 64: ~250M parameters, 1 GB). Weights are random (seeded); a folder
already there is kept. Each folder also gets reference.onnx, the model as torch.onnx.export
writes it (the dynamo exporter where onnxscript is installed, else the TorchScript one), with
the case's input names, for the latency comparison; reference.txt says which, or why none.
"""
import os
import sys
import warnings

warnings.filterwarnings("ignore")
here = os.path.dirname(os.path.abspath(__file__))
# caselib: ../shared/tools/gen2, or a copy in $ONNXC_CASELIB (where the chroot cannot see shared/)
sys.path[:0] = [d for d in (os.environ.get("ONNXC_CASELIB"), os.path.join(here, "..", "..", "shared", "tools", "gen2")) if d]
import torch  # noqa: E402
import caselib  # noqa: E402


def resnet50():
    from torchvision.models import resnet50 as make
    return dict(model=make(), samples=[(torch.randn(1, 3, 224, 224),)], source="torchvision resnet50")


def vit_b_16():
    from torchvision.models import vit_b_16 as make
    return dict(model=make(), samples=[(torch.randn(1, 3, 224, 224),)], source="torchvision vit_b_16")


class Bert(torch.nn.Module):
    """input_ids, attention_mask -> last hidden state."""
    def __init__(self):
        super().__init__()
        from transformers import BertConfig, BertModel
        self.m = BertModel(BertConfig()).eval()

    def forward(self, input_ids, attention_mask):
        return self.m(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def bert_12():
    ids = torch.randint(0, 30522, (1, 128))
    return dict(model=Bert(), samples=[(ids, torch.ones(1, 128, dtype=torch.int64))],
                source="transformers BertModel, BertConfig() (bert-base: 12 layers, width 768)")


class Lm(torch.nn.Module):
    """input_ids -> logits, no cache."""
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids):
        return self.m(input_ids=input_ids, use_cache=False).logits


def llama_400m():
    from transformers import LlamaConfig, LlamaForCausalLM
    c = LlamaConfig(vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=16,
                    num_attention_heads=16, num_key_value_heads=4, max_position_embeddings=512)
    return dict(model=Lm(LlamaForCausalLM(c).eval()), samples=[(torch.randint(0, 32000, (1, 64)),)],
                source="transformers LlamaForCausalLM, 16 layers x 1024 (GQA 16/4, MLP 2816)")


def reference(model, args, d):
    """reference.onnx beside the case, from torch.onnx.export; reference.txt says how."""
    import json
    names = json.load(open(os.path.join(d, "case.json")))["inputs"]
    out, how = os.path.join(d, "reference.onnx"), []
    for dynamo in (True, False):
        try:
            torch.onnx.export(model, args, out, dynamo=dynamo, input_names=names, opset_version=18)
            how.append(f"made by torch.onnx.export(dynamo={dynamo}), torch {torch.__version__}")
            break
        except Exception as e:  # noqa: BLE001 - recorded, the benchmark goes on without it
            how.append(f"dynamo={dynamo}: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
            if os.path.exists(out):
                os.remove(out)
    with open(os.path.join(d, "reference.txt"), "w") as f:
        f.write("\n".join(how) + "\n")


CASES = {"big_resnet50": resnet50, "big_vit_b_16": vit_b_16, "big_bert_12": bert_12,
         "big_llama_400m": llama_400m}

if __name__ == "__main__":
    out, names = sys.argv[1], sys.argv[2:] or list(CASES)
    torch.set_num_threads(2)
    for name in names:
        d = os.path.join(out, name)
        case, ref = (os.path.exists(os.path.join(d, f)) for f in ("case.json", "reference.txt"))
        if case and ref:
            print(f"kept {name}", flush=True)
            continue
        torch.manual_seed(0)  # the same weights again where only the reference is missing
        spec = CASES[name]()
        model, samples = spec.pop("model").eval(), spec.pop("samples")
        dt = 0.0
        if not case:
            dt = caselib.write_case(out, name, model, samples, core=False, rtol=1e-3, atol=1e-3, **spec)
        with torch.no_grad():
            reference(model, samples[0], d)
        print(f"made {name} ({dt:.1f} s)", flush=True)
