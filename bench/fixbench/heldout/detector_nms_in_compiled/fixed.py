import torch
from torch import nn


class TinyDetector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4))
        self.boxes = nn.Linear(8 * 16, 20 * 4)
        self.scores = nn.Linear(8 * 16, 20)

    def forward(self, images):
        feats = self.backbone(images).flatten(1)
        return self.boxes(feats).view(-1, 20, 4).sigmoid(), self.scores(feats).sigmoid()


def iou(box, others):
    lt = torch.maximum(box[:2], others[:, :2])
    rb = torch.minimum(box[2:], others[:, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area = (box[2:] - box[:2]).clamp(min=0).prod()
    areas = (others[:, 2:] - others[:, :2]).clamp(min=0).prod(-1)
    return inter / (area + areas - inter + 1e-6)


def nms(boxes, scores, threshold=0.5):
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        best = order[0]
        keep.append(best.item())
        rest = order[1:]
        order = rest[iou(boxes[best], boxes[rest]) < threshold]
    return keep


torch.manual_seed(0)
detector = TinyDetector().eval()
compiled_detector = torch.compile(detector, backend="eager")


def detect(images, score_threshold=0.5):
    boxes, scores = compiled_detector(images)
    results = []
    for b, s in zip(boxes, scores, strict=True):
        mask = s > score_threshold
        b, s = b[mask], s[mask]
        results.append(b[nms(b, s)])
    return results


with torch.no_grad():
    for _ in range(2):
        dets = detect(torch.randn(2, 3, 16, 16))
print("detections", [len(d) for d in dets])
print(f"box sum {sum(d.sum().item() for d in dets):.5f}")
