#!/usr/bin/env python3
"""make_big_models.py OUT_DIR [NAME...]: full-size models as case folders for the latency benchmark.

Run through real PyTorch (tools/bench_latency.sh --big does): from the repository root,
  ../shared/tools/torch-env run 2.14 python3 tools/make_big_models.py build/big-models
Writes OUT_DIR/NAME/ as ../shared/tools/gen2/caselib.py lays a case out (graph.txt, weights,
model.pt2, io.safetensors with PyTorch's outputs, case.json) for ResNet-50 and ViT-B/16
(torchvision, 224x224, batch 1) and a 12-layer BERT (transformers' BertConfig defaults:
bert-base, sequence 128, batch 1). Weights are random (seeded); a folder already there is kept.
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


CASES = {"big_resnet50": resnet50, "big_vit_b_16": vit_b_16, "big_bert_12": bert_12}

if __name__ == "__main__":
    out, names = sys.argv[1], sys.argv[2:] or list(CASES)
    torch.set_num_threads(2)
    for name in names:
        if os.path.exists(os.path.join(out, name, "case.json")):
            print(f"kept {name}", flush=True)
            continue
        torch.manual_seed(0)
        spec = CASES[name]()
        model, samples = spec.pop("model"), spec.pop("samples")
        dt = caselib.write_case(out, name, model.eval(), samples, core=False, rtol=1e-3, atol=1e-3, **spec)
        print(f"made {name} ({dt:.1f} s)", flush=True)
