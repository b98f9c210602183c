"""The onnxc program: where it is, the command line for a set of options,
running it, and its failures as a Python exception.  Needs nothing but the
standard library."""
import os
import shutil
import subprocess

__all__ = ["ConversionError", "find_onnxc", "command", "run"]


class ConversionError(RuntimeError):
    """onnxc refused the program.  `diagnostics` is what onnxc printed
    (file:line:col: error: ..., the source line and a caret), `report_path`
    the report it wrote (None without report=), `returncode` 1 for an
    input error and 2 for a usage error, `command` the command line,
    `archive_path` the .pt2 onnxc read (export keeps it on failure)."""
    __module__ = "onnxc"

    def __init__(self, diagnostics, returncode, command, report_path=None):
        self.diagnostics = diagnostics
        self.archive_path = command[1] if len(command) > 1 else None
        self.returncode = returncode
        self.command = command
        self.report_path = report_path
        what = "usage error" if returncode == 2 else "conversion failed"
        msg = "onnxc: %s (exit %d)" % (what, returncode)
        if diagnostics.strip():
            msg += ":\n" + diagnostics.rstrip()
        if report_path and os.path.exists(report_path):
            msg += "\nreport: %s" % report_path
        super().__init__(msg)


def _beside_package():
    """build*/onnxc of the checkout this package lies in (python/onnxc is
    two folders below the top), newest first."""
    top = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    found = []
    for name in ("build", "build-release", "build-asan"):
        exe = os.path.join(top, name, "onnxc")
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            found.append(exe)
    return found[0] if found else None


def find_onnxc():
    """The onnxc program: $ONNXC, else the build folder of the checkout the
    package lies in (the program and the package then agree), else onnxc
    on PATH.  Raises FileNotFoundError saying where it looked."""
    env = os.environ.get("ONNXC")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise FileNotFoundError("ONNXC=%s is not an executable file" % env)
    exe = _beside_package() or shutil.which("onnxc")
    if exe:
        return exe
    raise FileNotFoundError(
        "onnxc not found: set ONNXC to the program, build it into build/ "
        "of this checkout (tools/install.sh), or put it on PATH")


def _level(optimize):
    """-O flag for optimize=: True is onnxc's default (-O1), False -O0, an
    int 0..2 that level."""
    if optimize is True or optimize is None:
        return []
    if optimize is False:
        return ["-O0"]
    if isinstance(optimize, int) and 0 <= optimize <= 2:
        return ["-O%d" % optimize]
    raise ValueError("optimize must be True, False or 0, 1, 2; got %r"
                     % (optimize,))


def command(src, out, *, exe=None, input_names=None, output_names=None,
            opset_version=None, optimize=True, report_path=None,
            external_data=None, training=False, passes=None, plugins=(),
            dynamic=(), extra=()):
    """The argument list that converts src (a .pt2) into out.  dynamic:
    (input, dim, label) triples for --dynamic."""
    argv = [exe or find_onnxc(), os.fspath(src), "-o", os.fspath(out)]
    if opset_version is not None:
        argv += ["--opset", str(int(opset_version))]
    if passes:
        if optimize not in (True, None):
            raise ValueError("give passes= or optimize=, not both")
        argv.append("--passes=" + (passes if isinstance(passes, str)
                                   else ",".join(passes)))
    else:
        argv += _level(optimize)
    for p in plugins or ():
        argv += ["--load-plugin", os.fspath(p)]
    if training:
        argv.append("--training")
    if input_names:
        argv += ["--input-names", ",".join(input_names)]
    if output_names:
        argv += ["--output-names", ",".join(output_names)]
    for name, dim, label in dynamic:
        argv += ["--dynamic", "%s:%d=%s" % (name, dim, label)]
    if external_data is True:
        argv.append("--external-data")
    elif external_data is False:
        argv.append("--no-external-data")
    elif external_data is not None:
        raise ValueError("external_data must be None, True or False")
    if report_path:
        argv += ["--report", os.fspath(report_path)]
    argv += list(extra)
    return argv


def run(argv, report_path=None):
    """Runs onnxc; returns its stderr (warnings) on success, raises
    ConversionError on failure."""
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, errors="replace")
    if p.returncode != 0:
        raise ConversionError(p.stderr, p.returncode, argv, report_path)
    return p.stderr
