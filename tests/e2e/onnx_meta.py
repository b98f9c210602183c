"""Reads the metadata_props of IR version 10 (on nodes, values, initializers
and graphs) with an onnx package that predates them (Debian's 1.12): the
onnx descriptors, copied with those fields added, parse the same bytes.

load(path) -> a ModelProto whose NodeProto, ValueInfoProto, TensorProto and
GraphProto have metadata_props; props(msg) -> dict of them.
"""
import onnx
from google.protobuf import descriptor_pb2, descriptor_pool

try:
    from google.protobuf import message_factory
    _get = getattr(message_factory, "GetMessageClass", None)
except ImportError:  # pragma: no cover
    _get = None

# field numbers from onnx.proto (IR version 10)
_FIELDS = {"NodeProto": 9, "ValueInfoProto": 4, "TensorProto": 16,
           "GraphProto": 16}


def _classes():
    fdp = descriptor_pb2.FileDescriptorProto()
    onnx.ModelProto.DESCRIPTOR.file.CopyToProto(fdp)
    fdp.name = "onnx_meta_" + fdp.name
    fdp.package = "onnxmeta"
    names = {m.name for m in fdp.message_type}
    for msg in fdp.message_type:
        num = _FIELDS.get(msg.name)
        if num is None or "StringStringEntryProto" not in names:
            continue
        if any(f.name == "metadata_props" for f in msg.field):
            continue
        f = msg.field.add()
        f.name, f.number = "metadata_props", num
        f.label = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
        f.type = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
        f.type_name = ".onnxmeta.StringStringEntryProto"
    # type names inside the copy still say .onnx.X
    for msg in fdp.message_type:
        _fix(msg, fdp.package)
    pool = descriptor_pool.DescriptorPool()
    fd = pool.Add(fdp) if hasattr(pool, "Add") else None
    desc = pool.FindMessageTypeByName("onnxmeta.ModelProto")
    if _get:
        return _get(desc)
    from google.protobuf import reflection
    return reflection.message_factory.MessageFactory(pool).GetPrototype(desc)


def _fix(msg, pkg):
    for f in msg.field:
        if f.type_name.startswith(".onnx."):
            f.type_name = "." + pkg + f.type_name[5:]
    for sub in msg.nested_type:
        _fix(sub, pkg)


_Model = None


def load(path):
    global _Model
    if _Model is None:
        _Model = _classes()
    m = _Model()
    with open(path, "rb") as f:
        m.ParseFromString(f.read())
    return m


def props(msg):
    return {p.key: p.value for p in msg.metadata_props}
