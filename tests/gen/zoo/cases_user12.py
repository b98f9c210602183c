"""Image preprocessing exported with the model, as torchvision's transforms v2 functional API does it
on tensors: geometric (resize, pad, crop, flips, rotate, affine), color (brightness,
contrast, saturation, hue, gamma, sharpness, posterize, solarize, autocontrast, equalize, invert,
grayscale), blur and dtype conversion, on float and uint8 images, with dynamic sizes where torch.export
keeps them dynamic (the color ops specialize them)."""
import torch
from torch.export import Dim

from dynlib import D, Fn, case


def _tf():
    import torchvision.transforms.v2.functional as TF
    return TF


def geometric(x):
    TF = _tf()
    return (TF.pad(x, [2, 1, 3, 0], padding_mode="reflect"), TF.crop(x, 1, 2, 4, 5), TF.horizontal_flip(x),
            TF.vertical_flip(x), TF.rotate(x, 90.0, expand=True), TF.resized_crop(x, 1, 1, 5, 6, [8, 8], antialias=True))


def warps(x):
    TF = _tf()
    return (TF.rotate(x, 30.0), TF.affine(x, angle=15.0, translate=[1, -2], scale=1.1, shear=[5.0, 0.0])
            )  # perspective solves for its coefficients with lstsq: torch.export refuses it


def colors(x):
    TF = _tf()
    return (TF.adjust_brightness(x, 1.3), TF.adjust_contrast(x, 0.7), TF.adjust_saturation(x, 1.5), TF.adjust_hue(x, 0.1),
            TF.adjust_gamma(x, 0.8, 1.2), TF.adjust_sharpness(x, 2.0), TF.autocontrast(x), TF.invert(x), TF.solarize(x, 0.6),
            TF.rgb_to_grayscale(x, num_output_channels=3))


def colors_u8(x):
    TF = _tf()
    return (TF.adjust_brightness(x, 1.3), TF.adjust_contrast(x, 0.7), TF.adjust_hue(x, -0.2), TF.posterize(x, 3),
            TF.solarize(x, 100), TF.autocontrast(x), TF.equalize(x), TF.invert(x), TF.adjust_sharpness(x, 0.5),
            TF.to_dtype(x, torch.float32, scale=True))


def blur(x):
    TF = _tf()
    return TF.gaussian_blur(x, [5, 3], [1.5, 0.8]), TF.gaussian_blur(x, [3, 3])


def resize_norm(x):
    TF = _tf()
    y = TF.resize(x, [12, 10], antialias=True)
    return TF.normalize(TF.to_dtype(y, torch.float32, scale=True), [0.5, 0.4, 0.3], [0.2, 0.25, 0.3])


def boxes(b):
    from torchvision.ops import box_convert, box_area, box_iou, clip_boxes_to_image
    xyxy = box_convert(b, "cxcywh", "xyxy")
    return xyxy, box_area(xyxy), box_iou(xyxy, xyxy), clip_boxes_to_image(xyxy, (6, 8))


torch.manual_seed(0)
U8 = lambda *s: torch.randint(0, 256, s, dtype=torch.uint8)
CASES = {
    "t_geometric": lambda: case(Fn(geometric), (torch.rand(2, 3, 8, 10),), (torch.rand(1, 3, 8, 10),), dyn=({0: D},)),
    "t_warps": lambda: case(Fn(warps), (torch.rand(2, 3, 8, 10),), (torch.rand(1, 3, 8, 10),), dyn=({0: D},), atol=1e-3),
    "t_colors": lambda: case(Fn(colors), (torch.rand(2, 3, 7, 9),), (torch.rand(2, 3, 7, 9),), dyn=(None,), atol=1e-4),
    "t_colors_u8": lambda: case(Fn(colors_u8), (U8(2, 3, 7, 9),), (U8(2, 3, 7, 9),), dyn=(None,), atol=1),
    "t_blur": lambda: case(Fn(blur), (torch.rand(2, 3, 9, 8),), (torch.rand(1, 3, 12, 7),), dyn=({0: D, 2: D, 3: D},)),
    "t_resize_norm": lambda: case(Fn(resize_norm), (U8(2, 3, 20, 16),), (U8(1, 3, 33, 25),), dyn=({0: D, 2: D, 3: D},), atol=1e-3),
    "t_boxes": lambda: case(Fn(boxes), (torch.rand(5, 4) * 6,), (torch.rand(9, 4) * 6,), dyn=({0: D},)),
}
