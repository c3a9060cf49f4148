"""The layout's rules (ARCHITECTURE.md), read from the source with ast.

Each package imports only the layers below it, click and rich stay in the
application layer, the scoring path loads no heavy library when its modules
are imported, no module imports one that imports it back (in the Python
package and in the Rust core alike), no function but a click command takes
more than ten parameters, and no source file but a generated table is longer
than 600 lines.  Deferred imports (inside a function) count for the layer
rules and the circles: a rule broken on a rarely taken path is still broken.
Reading the source costs milliseconds and catches what one run of the
program would not reach.
"""

import ast
import itertools
import re
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = ROOT / "spamnb"

# Bottom to top.  The foundation is spamnb's own top-level modules (errors,
# files, record, progress, workers); spamnb/__init__ reaches the public API
# through importlib strings, and __main__ is the entry point: neither is a layer.
LAYERS = ["foundation", "mail", "text", "model", "learning", "app"]

# What a module's import costs at load time when it is on the scoring path.
HEAVY = {"numpy", "scipy", "click", "rich", "matplotlib", "dask", "distributed", "email", "dataclasses", "inspect"}
# Test-only oracles of the core's Chinese ([test] extra): no module of spamnb
# imports them, at load time or deferred.
TEST_ONLY = {"jieba", "rjieba", "opencc"}
# The Rust core: an extension module (spamnb/_core.abi3.so, built from core/),
# with its type stubs beside it; a foundation module of no Python source.
CORE = "spamnb._core"

# The modules `spamnb classify`, `filter` and `learn` load to score or learn
# one message in a fresh process (app/fastpath.py), and everything they
# import at load time.
SCORING_ROOTS = ["spamnb.app.fastpath", "spamnb.app.classify", "spamnb.app.filtering", "spamnb.app.render",
                 "spamnb.app.server", "spamnb.model.scorer", "spamnb.model.opening", "spamnb.learning.incremental"]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer(name: str) -> str | None:
    parts = name.split(".")
    if name in ("spamnb", "spamnb.__main__"):
        return None
    return parts[1] if len(parts) > 2 or parts[1] in LAYERS else "foundation"


def is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def imports(name: str) -> list[tuple[str, bool]]:
    """(imported module, at load time?) for every import statement of a module;
    `from package import module` names the module.  Blocks under
    `if TYPE_CHECKING:` never run and are left out."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []

    def visit(node: ast.AST, deferred: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if is_type_checking(child):
                continue
            inner = deferred or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((alias.name, not deferred) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[:len(package.split(".")) - child.level + 1]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                for alias in child.names:
                    submodule = f"{target}.{alias.name}"
                    found.append((submodule if submodule in MODULES else target, not deferred))
            visit(child, inner)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


IMPORTS = {name: imports(name) for name in MODULES}


def own(target: str) -> bool:
    return target == "spamnb" or target.startswith("spamnb.")


def test_the_layout_is_what_the_rules_describe():
    # The rules below mean nothing if the packages are not where they say.
    packages = {layer(name) for name in MODULES} - {None}
    assert packages == set(LAYERS)
    for name in MODULES:
        assert layer(name) in LAYERS or name in ("spamnb", "spamnb.__main__"), name


@pytest.mark.parametrize("name", sorted(name for name in MODULES if layer(name)))
def test_each_module_imports_only_its_own_layer_and_those_below(name):
    rank = LAYERS.index(layer(name))
    above = sorted({target for target, _ in IMPORTS[name]
                    if own(target) and target != "spamnb" and LAYERS.index(layer(target)) > rank})
    assert above == [], f"{name} ({layer(name)}) imports a layer above it: {above}"


def test_click_and_rich_stay_in_the_application_layer():
    # progress.Phases is what the library takes; only its TerminalPhases,
    # which the command line builds, draws with rich (a deferred import).
    allowed = {"spamnb.progress"}
    offenders = {name: sorted(target for target, load_time in IMPORTS[name]
                              if target.split(".")[0] in ("click", "rich") and (load_time or name not in allowed))
                 for name in MODULES if layer(name) != "app"}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_subpackages_import_nothing_when_imported_and_say_what_they_never_import():
    for name in LAYERS[1:]:
        path = PACKAGE / name / "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstring = ast.get_docstring(tree) or ""
        assert "Never imports" in docstring and "In:" in docstring and "Out:" in docstring, path
        assert len(tree.body) == 1, f"{path} does more than hold its docstring (the fast path imports it)"


def load_time_closure(roots: list[str]) -> set[str]:
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(target for target, load_time in IMPORTS[name] if load_time and target in MODULES)
    return seen


def test_the_scoring_path_loads_no_heavy_library():
    path = load_time_closure(SCORING_ROOTS)
    assert "spamnb.model.scoring" in path and "spamnb.text.tokens" in path  # the closure is followed
    heavy = {name: sorted(target for target, load_time in IMPORTS[name]
                          if load_time and target.split(".")[0] in HEAVY)
             for name in path}
    assert {name: found for name, found in heavy.items() if found} == {}


def test_the_core_is_an_extension_module_below_every_layer():
    assert CORE not in MODULES and layer(CORE) == "foundation"
    assert list(PACKAGE.glob("_core*.so")), "spamnb._core is not built into the package"
    assert (PACKAGE / "_core.pyi").is_file()
    users = {name for name in MODULES for target, _ in IMPORTS[name] if target == CORE}
    assert {"spamnb.text.tokens", "spamnb.mail.digest", "spamnb.text.stopwords"} <= users


def test_the_scoring_path_loads_the_core_at_load_time():
    # The fast path scores a message in the core (decoding, tokens, keys):
    # some module of its load-time closure imports the extension at load time.
    path = load_time_closure(SCORING_ROOTS)
    loaders = sorted(name for name in path if (CORE, True) in IMPORTS[name])
    assert "spamnb.text.tokens" in loaders, loaders


def test_the_scoring_path_loads_the_core_and_no_heavy_library_in_a_fresh_process():
    import subprocess
    import sys

    code = ("import sys, spamnb.app.fastpath, spamnb.model.opening; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in %r)); "
            "print(type(sys.modules.get('spamnb._core')).__name__, "
            "getattr(sys.modules.get('spamnb._core'), '__file__', ''))" % (sorted(HEAVY | TEST_ONLY),))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    heavy, core = done.stdout.splitlines()
    assert heavy == "[]"
    kind, _, file = core.partition(" ")
    assert kind == "module" and file.endswith(".so") and file.startswith(str(PACKAGE)), core


def test_no_module_imports_a_test_only_oracle():
    found = {name: sorted(target for target, _ in IMPORTS[name] if target.split(".")[0] in TEST_ONLY)
             for name in MODULES}
    assert {name: targets for name, targets in found.items() if targets} == {}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The modules that import one another round a circle, each circle's
    modules sorted: the strongly connected components (Tarjan's) of more
    than one module, or of one that imports itself."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(name: str) -> None:
        order[name] = low[name] = len(order)
        stack.append(name)
        for target in sorted(graph[name]):
            if target not in order:
                visit(target)
                low[name] = min(low[name], low[target])
            elif target in stack:
                low[name] = min(low[name], order[target])
        if low[name] == order[name]:
            component = stack[stack.index(name):]
            del stack[stack.index(name):]
            if len(component) > 1 or name in graph[name]:
                found.append(sorted(component))

    for name in sorted(graph):
        if name not in order:
            visit(name)
    return sorted(found)


def test_circles_are_found_however_long_and_only_where_they_are():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"a"}, "b": set()}) == [["a"]]
    assert circles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []  # a diamond is no circle


def test_no_module_imports_one_that_imports_it_back():
    # Deferred imports (inside a function) count: one taken on a rare path
    # still ties the two modules together, and hides which is above the
    # other.  A choice between them belongs in a module above both
    # (model/opening.py opens a model for scoring, falling back to the whole load).
    graph = {name: {target for target, _ in IMPORTS[name] if target in MODULES} for name in MODULES}
    assert circles(graph) == []


MAX_PARAMETERS = 10


def parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """How many parameters a caller can give (a method's self or cls not counted)."""
    given = function.args
    count = (len(given.posonlyargs) + len(given.args) + len(given.kwonlyargs)
             + (given.vararg is not None) + (given.kwarg is not None))
    everything = given.posonlyargs + given.args
    return count - (bool(everything) and everything[0].arg in ("self", "cls"))


def imports_click(tree: ast.Module) -> bool:
    return any(isinstance(node, ast.Import) and any(alias.name == "click" and alias.asname is None
                                                    for alias in node.names) for node in tree.body)


def is_click_command(function: ast.FunctionDef | ast.AsyncFunctionDef, tree: ast.Module) -> bool:
    # Click hands a command every option as a parameter of its own; the
    # command hands them on grouped.  Every command is made by
    # @click.command() or @click.group() (cli.py adds them with add_command),
    # so only those decorators of the click the module imports count: any
    # other `.command(...)` is no licence for a long parameter list.
    return imports_click(tree) and any(
        isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
        and isinstance(decorator.func.value, ast.Name) and decorator.func.value.id == "click"
        and decorator.func.attr in ("command", "group") for decorator in function.decorator_list)


def test_no_function_but_a_click_command_takes_more_than_ten_parameters():
    trees = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}
    functions = [(name, tree, node) for name, tree in trees.items() for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    too_many = sorted(f"{name}.{node.name} ({parameters(node)})" for name, tree, node in functions
                      if parameters(node) > MAX_PARAMETERS and not is_click_command(node, tree))
    commands = [node for _, tree, node in functions if is_click_command(node, tree)]
    assert any(parameters(node) > MAX_PARAMETERS for node in commands)  # the exception is found, so it is needed
    assert too_many == []


def test_only_clicks_own_decorators_make_a_click_command():
    tree = ast.parse("import click\n"
                     "@click.command()\ndef a(): pass\n"
                     "@cli.command()\ndef b(): pass\n"
                     "@app.click.group()\ndef c(): pass\n"
                     "@click.option('-x')\ndef d(): pass\n")
    made = {node.name: is_click_command(node, tree) for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert made == {"a": True, "b": False, "c": False, "d": False}
    unimported = ast.parse("click = object()\n@click.command()\ndef e(): pass\n")
    assert not is_click_command(unimported.body[1], unimported)


def test_every_timing_test_is_in_a_file_the_serial_phase_runs():
    # `make test` runs the `timing` tests alone, naming their files (collecting
    # the whole suite again cost seconds of its five minutes); the parallel
    # phase leaves them out, so a timing test in any other file would never run.
    tests = Path(__file__).resolve().parent
    makefile = (tests.parent / "Makefile").read_text()
    serial = next(line for line in makefile.splitlines() if "-m timing" in line)
    marked = {str(path.relative_to(tests.parent)) for path in tests.rglob("test_*.py")
              if "mark.timing" in path.read_text(encoding="utf-8") and path.name != "test_layout.py"}
    assert marked and all(name in serial.split() for name in marked), (marked, serial)


# A file longer than this holds more than one job (the rule: split by job, not
# by line count).
MAX_LINES = 600
# Generated tables are data, not code, each named here with the script that
# writes it (each also says so in its first lines: "Generated by ...: do not
# edit").  Named one by one: a file cannot leave the rule by saying it is
# generated.
GENERATED = {
    "core/src/text/pyunicode.rs": "core/gen_pyunicode.py",
    "core/src/mail/html/entities.rs": "tools/html_entities_table.py",
    "core/src/mail/charset_tables.rs": "core/tools/gen_charset_tables.py",
    "core/build_tables/dbcs_corrections.rs": "core/tools/gen_charset_tables.py",
}
# What cargo and cargo-fuzz write (builds, the fuzzer's inputs and finds):
# none of it is source.  Matched as whole leading paths, so a source file
# whose path merely holds "target" or "fuzz" is still read.
NOT_SOURCE = ["core/target", "core/fuzz/target", "core/fuzz/corpus", "core/fuzz/artifacts"]


def is_under(relative: str, directory: str) -> bool:
    return relative == directory or relative.startswith(directory + "/")


def says_it_is_generated(text: str) -> bool:
    return "Generated by" in "".join(text.splitlines(keepends=True)[:3])


def test_the_generated_tables_are_the_files_that_say_they_are_generated():
    sources = [*PACKAGE.rglob("*.py"), *(ROOT / "core").rglob("*.rs")]
    saying = {str(path.relative_to(ROOT)) for path in sources
              if not any(is_under(str(path.relative_to(ROOT)), directory) for directory in NOT_SOURCE)
              and says_it_is_generated(path.read_text(encoding="utf-8"))}
    assert saying == set(GENERATED)
    assert all((ROOT / script).is_file() for script in GENERATED.values())


def test_no_source_file_is_longer_than_a_job_needs():
    sources = [*PACKAGE.rglob("*.py"), *(ROOT / "core").rglob("*.rs")]
    read = [str(path.relative_to(ROOT)) for path in sources]
    read = [relative for relative in read
            if relative not in GENERATED and not any(is_under(relative, directory) for directory in NOT_SOURCE)]
    long = {relative: count for relative in read
            if (count := (ROOT / relative).read_text(encoding="utf-8").count("\n")) > MAX_LINES}
    assert long == {}
    assert len(read) > 100  # the scan found the package and the crate
    assert "core/fuzz/fuzz_targets/message.rs" in read  # and the fuzz targets, which are source


# The Rust core's modules: one a file (a `foo/mod.rs` or `foo.rs` is module
# foo), found by following `mod` declarations from lib.rs, as rustc does.
CRATE = ROOT / "core" / "src"
CRATE_ROOT = "crate"

# Comments, strings and characters, which may hold anything that looks like
# code; a string is kept as a numbered stand-in (a `#[path]` is one).
RUST_LITERALS = re.compile(r"""
    //[^\n]*
  | /\*.*?\*/
  | \bb?r(?P<hashes>\#*)".*?"(?P=hashes)
  | (?:\bb)?"(?:\\.|[^"\\])*"
  | (?:\bb)?'(?:\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\.|[^'\\\n])'
""", re.S | re.X)
RUST_CFG_TEST = re.compile(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*")
RUST_MOD = re.compile(r"((?:#\[[^\]]*\]\s*)*)(?:\bpub\b(?:\s*\([^)]*\))?\s*)?\bmod\s+(\w+)\s*([;{])")
RUST_USE = re.compile(r"(\bpub\b(?:\s*\([^)]*\))?\s*)?\buse\s+([^;]+);")
# An inherent impl (not `impl Trait for`) and its body, to the first closing
# brace at the start of a line.
RUST_IMPL = re.compile(r"^impl\b(?:\s*<[^{]*?>)?\s+(\w+)\b(?:(?!\bfor\b)[^{;])*?\{(.*?)^\}", re.S | re.M)
RUST_PATH = re.compile(r"(?<![\w:])([A-Za-z_]\w*)((?:\s*::\s*[A-Za-z_]\w*)+)")


def rust_code(text: str) -> tuple[str, list[str]]:
    """A file's code with comments, strings and characters blanked (each
    string a stand-in `"n"` for strings[n]) and every item under
    `#[cfg(test)]` left out: tests may use any module."""
    strings: list[str] = []

    def blank(found: re.Match) -> str:
        if found.group().startswith(("//", "/*", "'", "b'")):
            return " "
        strings.append(found.group())
        return f'"{len(strings) - 1}"'

    code = RUST_LITERALS.sub(blank, text)
    while found := RUST_CFG_TEST.search(code):
        depth, end = 0, found.end()
        while end < len(code):
            if code[end] in "({[":
                depth += 1
            elif code[end] in ")}]":
                depth -= 1
                if depth == 0 and code[end] == "}":
                    break
            elif code[end] == ";" and depth == 0:
                break
            end += 1
        code = code[:found.start()] + " " + code[end + 1:]
    return code, strings


def use_tree(tree: str, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str | None]]:
    """The paths a `use` brings in, each with the name it binds (None for a glob)."""
    tree = re.sub(r"\s*(::|\{|\}|,)\s*", r"\1", " ".join(tree.split()))
    if tree.endswith("}"):
        head, _, body = tree.partition("{")
        base = prefix + tuple(segment for segment in head.split("::") if segment)
        parts, depth, start = [], 0, 0
        for i, char in enumerate(body[:-1]):
            depth += (char == "{") - (char == "}")
            if char == "," and depth == 0:
                parts.append(body[start:i])
                start = i + 1
        parts.append(body[start:-1])
        return [use for part in parts if part for use in use_tree(part, base)]
    path, _, alias = tree.partition(" as ")
    segments = prefix + tuple(segment for segment in path.split("::") if segment)
    if segments[-1] == "self":
        segments = segments[:-1]
    return [(segments, None if segments[-1] == "*" else alias or segments[-1])]


class RustModule:
    """One file's module: where it is, its children, and what its code names."""

    def __init__(self, name: tuple[str, ...], path: Path, generated: bool):
        self.name, self.path = name, path
        text = "" if generated else path.read_text(encoding="utf-8")
        code, strings = rust_code(text)
        self.children: dict[str, Path] = {}
        for attributes, child, opening in RUST_MOD.findall(code):
            # Only the tests are inline modules: a file is one module here.
            assert opening == ";", f"{path}: inline module {child} (the check reads a file as one module)"
            at = re.search(r'#\[path\s*=\s*"(\d+)"\]', attributes)
            if at:  # beside the declaring file (rustc's rule for a file module)
                self.children[child] = (path.parent / strings[int(at.group(1))][1:-1]).resolve()
            else:
                directory = path.parent if path.name in ("lib.rs", "mod.rs") else path.parent / path.stem
                candidates = [directory / f"{child}.rs", directory / child / "mod.rs"]
                self.children[child] = next(candidate for candidate in candidates if candidate.is_file())
        self.uses: list[tuple[bool, tuple[str, ...], str | None]] = []
        self.bound: dict[str, tuple[str, ...]] = {}
        for public, tree in RUST_USE.findall(code):
            for segments, bound in use_tree(tree):
                full = self.absolute(segments)
                if full is not None:
                    assert bound is not None or not public, f"{path}: a glob re-export hides where names are"
                    self.uses.append((bool(public), full, bound))
                    if bound is not None:
                        self.bound[bound] = full
        # The code but its `use` and `mod` lines, for the paths it names inline.
        self.code = RUST_MOD.sub(" ", RUST_USE.sub(" ", code))
        # The methods this file adds to a type of another file (reader/
        # starttag.rs's `impl Reducer`): called with no path, a use of them
        # shows only as a call.
        defined = set(re.findall(r"\b(?:struct|enum|union|type)\s+(\w+)", self.code))
        self.methods_of: dict[str, str] = {}
        for extended, body in RUST_IMPL.findall(self.code):
            if extended not in defined:
                self.methods_of.update((method, extended) for method in re.findall(r"\bfn\s+(\w+)", body))

    def absolute(self, segments: tuple[str, ...]) -> tuple[str, ...] | None:
        """A path from the crate's root, or None for another crate's."""
        first = segments[0]
        if first == "crate":
            return segments[1:]
        if first == "self":
            return self.name + segments[1:]
        if first == "super":
            up = len(segments) - len(tuple(itertools.dropwhile(lambda segment: segment == "super", segments)))
            return self.name[:len(self.name) - up] + segments[up:]
        if first in self.children:
            return self.name + segments
        if first in self.bound:
            return self.bound[first] + segments[1:]
        return None


def rust_modules() -> dict[tuple[str, ...], RustModule]:
    generated = {(ROOT / relative).resolve() for relative in GENERATED}
    found, todo = {}, [((), CRATE / "lib.rs")]
    while todo:
        name, path = todo.pop()
        found[name] = module = RustModule(name, path.resolve(), path.resolve() in generated)
        todo.extend((name + (child,), child_path) for child, child_path in module.children.items())
    return found


RUST_MODULES = rust_modules()


def defined_in(path: tuple[str, ...], depth: int = 0) -> tuple[str, ...]:
    """The module that defines what a path names, through the re-exports
    (`pub use`) on the way: `super::decode_with` in a child of charsets is
    decode.rs's function, not charsets.rs's."""
    module = max((path[:n] for n in range(len(path) + 1) if path[:n] in RUST_MODULES), key=len)
    rest = path[len(module):]
    reexported = {bound: full for public, full, bound in RUST_MODULES[module].uses if public}
    if rest and rest[0] in reexported and depth < 20:
        return defined_in(reexported[rest[0]] + rest[1:], depth + 1)
    return module


def rust_name(module: tuple[str, ...]) -> str:
    return "::".join(module) or CRATE_ROOT


def rust_uses(module: RustModule) -> set[str]:
    """The modules a module's own code uses.  A module declaring its children
    and re-exporting their items (`mod x; pub use x::f;`) is a front for
    them, not their user: a child using the front's own items (html.rs's
    Stop, tokens.rs's joined) is then no circle.  The front's code using an
    item it re-exports is."""
    targets = set()
    for public, full, bound in module.uses:
        front = full[:len(module.name)] == module.name and len(full) > len(module.name)
        if not (public and front) or (bound and re.search(rf"\b{bound}\b", module.code)):
            targets.add(defined_in(full))
    for first, rest in RUST_PATH.findall(module.code):
        full = module.absolute((first, *(segment.strip() for segment in rest.split("::")[1:])))
        if full is not None:
            targets.add(defined_in(full))
    # A call of a method another file adds to a type.  A type's methods split
    # by job into its module's children (reader.rs's Reducer, whose start
    # tags are read in reader/starttag.rs) call one another both ways: one
    # impl in several files, not a circle.  The children using their
    # parent's type is still an edge, and so is any other module's call.
    calls = set(re.findall(r"(?:\.|::)\s*(\w+)\s*(?:::\s*<[^>]*>\s*)?\(", module.code))
    for other in RUST_MODULES.values():
        for method, extended in other.methods_of.items():
            split = other.name[:len(module.name)] == module.name and re.search(
                rf"\b(?:struct|enum|union|type)\s+{extended}\b", module.code)
            if method in calls and other is not module and not split:
                targets.add(other.name)
    return {rust_name(target) for target in targets} - {rust_name(module.name)}


RUST_GRAPH = {rust_name(name): rust_uses(module) for name, module in RUST_MODULES.items()}


def test_the_rust_reading_sees_code_only():
    code, strings = rust_code('use a::b; // use crate::c;\nlet s = "use crate::d;";\n'
                              '#[cfg(test)]\nmod tests { use crate::e; }\n#[cfg(test)]\nuse crate::f;\nfn g() {}\n')
    assert RUST_USE.findall(code) == [("", "a::b")] and strings == ['"use crate::d;"'] and "fn g()" in code
    assert use_tree("super::{a, b::{self, C as D}, e::*}") == [
        (("super", "a"), "a"), (("super", "b"), "b"), (("super", "b", "C"), "D"), (("super", "e", "*"), None)]


def test_every_rust_source_file_is_a_module_of_the_crate_or_its_tests():
    files = {path.resolve() for path in CRATE.rglob("*.rs")}
    read = {module.path for module in RUST_MODULES.values()}
    assert all(path.name == "tests.rs" for path in files - read), sorted(files - read)
    # The reading finds what the code uses, through a front's re-exports.
    assert {"mail::charsets::iso2022", "mail::charsets::replacement"} <= RUST_GRAPH["mail::charsets::decode"]
    assert "mail::charsets::decode" in RUST_GRAPH["mail::charsets::score"]  # `use super::decode_with`
    assert "mail::html" in RUST_GRAPH["mail::html::reader"]  # html.rs's Stop
    assert "mail::html::reader" not in RUST_GRAPH["mail::html"]  # a front only


def test_no_rust_module_uses_one_that_uses_it_back():
    # As for the Python: a circle hides which module is above the other.
    # What two decoders share goes below both (charsets/replacement.rs).
    assert circles(RUST_GRAPH) == []
