#!/usr/bin/env python3
"""Training-mode exports for tests/training (issue 19), made with real PyTorch:

    ../shared/tools/torch-env run 2.14 python3 tests/gen/make_training_cases.py tests/training

Each case is a folder as ../shared/tools/gen2/caselib.py writes it (graph.txt, model.pt2,
weights.safetensors, io.safetensors, case.json), exported in model.train() mode.  Cases whose
output is random (dropout with p > 0) are checked by structure and statistics in
tests/e2e/training.sh, not against PyTorch's numbers; case.json "check" says which.
"""
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/tools/gen2"))
import torch
from torch import nn
import caselib

out = sys.argv[1]


class LM(nn.Module):
    """nn.TransformerEncoder language model: embedding, 6 layers with dropout 0.2, causal mask."""
    def __init__(self, vocab=40, d=16, heads=2, ff=32, layers=6):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.2, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        s = ids.shape[1]
        mask = torch.triu(torch.full((s, s), float("-inf")), diagonal=1)
        return self.head(self.enc(self.emb(ids), mask=mask, is_causal=True))


class CNN(nn.Module):
    """conv + batch norm + Dropout2d, then a classifier with Dropout."""
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.drop2d = nn.Dropout2d(0.25)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 10)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        x = self.drop2d(torch.relu(self.bn1(self.conv1(x))))
        x = torch.relu(self.bn2(self.conv2(x)))
        return self.fc(self.drop(x.mean((2, 3))))


class BnOnly(nn.Module):
    """conv + batch norm in training mode: deterministic, compared with PyTorch's batch statistics."""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3)
        self.bn = nn.BatchNorm2d(6)
        self.bn1d = nn.BatchNorm1d(6)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        return self.bn1d(y.flatten(2)).sum(-1)


class Drop(nn.Module):
    def __init__(self, kind, p):
        super().__init__()
        self.d = {"plain": nn.Dropout, "feature": nn.Dropout2d, "alpha": nn.AlphaDropout}[kind](p)

    def forward(self, x):
        return self.d(x)


def case(name, model, samples, check, flags=("--training",)):
    torch.manual_seed(0)
    caselib.write_case(out, name, model, samples, core=False, train=True, flags=list(flags),
                       source=f"tests/gen/make_training_cases.py: {name}")
    p = os.path.join(out, name, "case.json")
    meta = json.load(open(p))
    meta["check"] = check
    json.dump(meta, open(p, "w"), indent=1)
    print("ok", name)


torch.manual_seed(0)
case("transformer_lm", LM(), [(torch.randint(0, 40, (2, 7)),)], "structure")
case("cnn_bn_dropout", CNN(), [(torch.randn(4, 3, 8, 8),)], "structure")
case("bn_train", BnOnly(), [(torch.randn(4, 3, 6, 6),)], "numbers")
case("dropout_p0", Drop("plain", 0.0), [(torch.randn(64, 32),)], "numbers")
case("dropout_half", Drop("plain", 0.5), [(torch.ones(100, 100),)], "dropout")
case("dropout_feature", Drop("feature", 0.5), [(torch.ones(8, 64, 4, 4),)], "feature")
case("dropout_alpha", Drop("alpha", 0.3), [(torch.ones(100, 100),)], "alpha")
