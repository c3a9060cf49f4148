"""The layout's rules (ARCHITECTURE.md), read from the source with ast.

Each package imports only the layers below it, click and rich stay in the
application layer, the scoring path loads no heavy library when its modules
are imported, no module imports one that imports it back, no function but a
click command takes more than ten parameters, and no source file but a
generated table is longer than 600 lines.  Deferred imports (inside a
function) count for the layer rules and the circles: a rule broken on a
rarely taken path is still broken.  Reading the source costs milliseconds
and catches what one run of the program would not reach.
"""

import ast
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

