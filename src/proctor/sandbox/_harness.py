"""The test runner inside the sandbox: runs the candidate's code, then the tests, and reports a
verdict the candidate cannot reach or forge. Standard library only.

Its source is handed to the sandbox's interpreter as `python -s -S -B -P -c BOOTSTRAP` and runs
in a globals dict of its own, with its own copy of the builtins, so nothing the candidate can
name (`sys.modules["__main__"]`, `builtins`) leads to it. The order, and why:

1. Read the job (a marshal frame on fd 0: candidate source, prelude, tests, a one-time token)
   and put /dev/null on fd 0, so nothing of it is left to read.
2. Capture every function used after step 5 (`posix.write`, `posix._exit`, the data check…)
   and every builtin `_main` names (`b_dict`, `b_tuple`…): the candidate may rebind any module
   attribute, so none is looked up later, and `_main`'s bytecode loads no global (a test reads it).
3. Run the prelude (trusted code, e.g. HumanEval's prompt with its helpers) in a namespace of its
   own, and import the modules the tests and prelude use.
4. Take the dangerous doors away: `_signal.signal` (a handler receives the current frame) and
   `_imp`'s re-creation of built-in modules are replaced by refusing wrappers.
   Then seal what the tests reach: those modules, `builtins` and `collections`, walked down to
   the classes, functions, tables and instances below them, recorded by identity (see "the
   seal" below).
5. Arm the audit hook (installed first of all, and irremovable): from now on frame walking
   (`sys._getframe`, `sys._current_frames`, `tb_frame`, `gi_frame`, `cr_frame`, `ag_frame`),
   `sys.settrace`/`setprofile`, the garbage collector's object lists, ctypes, code objects made
   by hand, marshal, exec of programs, new audit hooks, fork (for benchmark tests) and the
   modules that reach around all that (`_ctypes`, `_testcapi`, `_xxsubinterpreters`,
   `_posixsubprocess`) are refused, and each refusal is noted.
6. Say "started" on the verdict channel (fd 3): the parent's clock for the program starts here.
7. Run the candidate's code as module "solution", with a copy of the pristine builtins of its
   own; then the tests in a namespace of their own (the prelude's names and the candidate's
   functions; pristine builtins), with every function the tests call wrapped so that what it
   returns (and what it leaves in its arguments) is checked to be plain data: an object of a
   type the candidate defined, or a subclass of a built-in, could compare equal to anything.
   After the candidate's code ran, and before and after each call the tests make (and each step
   of an iterator it returned), the seal is checked (a change is a violation) and the tests'
   `random` is reseeded from `os.urandom`, so no draw of theirs can be known in advance or
   steered by the candidate. While the tests run the cyclic collector runs only inside those
   calls: no finalizer of the candidate's runs between a check and the tests' next step.
8. Write one verdict line with the token, this process's pid and the outcome, unless this is a
   forked copy of the harness; only then print diagnostics, and leave with `posix._exit`.
"""

from __future__ import annotations

from typing import Any

WRAPPERS = """
def signal(signalnum, handler):
    _audit("proctor.refuse", "signal handlers")


def fork_exec(*args, **kwargs):
    _audit("proctor.refuse", "_posixsubprocess.fork_exec")


def create_builtin(spec):
    box = []
    _audit("proctor.create_builtin", spec, None, box)
    return box[0]


def create_dynamic(spec, file=None):
    box = []
    _audit("proctor.create_dynamic", spec, file, box)
    return box[0]


def exec_builtin(module):
    box = []
    _audit("proctor.exec_builtin", module, box)
    return box[0]


def coroutine(func):
    box = []
    _audit("proctor.coroutine", func, box)
    return box[0]


def start_new_thread(*args, **kwargs):
    box = []
    _audit("proctor.start_new_thread", args, kwargs, box)
    return box[0]


def get_code(self, fullname):
    box = []
    _audit("proctor.get_code", self, fullname, box)
    return box[0]
"""
"""What the harness installs in shared modules: functions that hold nothing (their globals are
a dict of their own with `sys.audit` alone) and pass their call to the hook."""


def _main() -> None:
    import _imp
    import _json
    import _posixsubprocess
    import _random
    import _signal  # type: ignore[import-not-found]
    import builtins
    import gc
    import itertools
    import marshal
    import operator
    import posix
    import sys
    import types

    # -- 2. everything used once the candidate runs is bound here, before it exists --------------
    # Every builtin this function names is one of these locals (a test reads the bytecode for a
    # global lookup): the harness's globals hold a copy of the builtins that the candidate never
    # gets (its module has a copy of its own), and even if it did, nothing here would look it up.
    b = builtins
    write = posix.write
    exit_now = posix._exit
    getpid = posix.getpid
    urandom = posix.urandom
    encode_json_string = _json.encode_basestring_ascii
    b_type, b_id, b_len = b.type, b.id, b.len
    module_type = b_type(sys)
    b_compile, b_exec, b_import = b.compile, b.exec, b.__import__
    b_str, b_int, b_list, b_dict = b.str, b.int, b.list, b.dict
    b_set, b_frozenset, b_tuple = b.set, b.frozenset, b.tuple
    b_bytes, b_bytearray, b_bool = b.bytes, b.bytearray, b.bool
    b_float, b_complex = b.float, b.complex
    b_range, b_iter, b_map, b_filter, b_zip = b.range, b.iter, b.map, b.filter, b.zip
    b_enumerate, b_reversed, b_sorted = b.enumerate, b.reversed, b.sorted
    b_getattr, b_setattr, b_isinstance = b.getattr, b.setattr, b.isinstance
    b_any, b_all, b_next, b_stop_iteration = b.any, b.all, b.next, b.StopIteration
    b_classmethod, b_staticmethod, b_property = b.classmethod, b.staticmethod, b.property
    dict_setitem, dict_getitem = b_dict.__setitem__, b_dict.__getitem__
    b_base, b_exception = b.BaseException, b.Exception
    b_system_exit, b_memory_error = b.SystemExit, b.MemoryError
    b_recursion_error = b.RecursionError
    b_syntax_error = b.SyntaxError
    b_callable = b.callable
    b_vars = b.vars
    b_value_error, b_type_error, b_name_error = b.ValueError, b.TypeError, b.NameError
    b_assertion_error = b.AssertionError
    function_type = b_type(lambda: None)
    code_type = types.CodeType
    modules = sys.modules
    dict_get, dict_clear = b_dict.get, b_dict.clear
    dict_keys, dict_values = b_dict.keys, b_dict.values
    list_append, list_extend, list_pop = b_list.append, b_list.extend, b_list.pop
    set_add = b_set.add
    str_startswith, str_join = b_str.startswith, b_str.join
    pristine = b_dict(b.__dict__)
    wrappers_source = WRAPPERS

    # -- 1. the job ------------------------------------------------------------------------------
    def read_frame(fd: int) -> bytes:
        header = b""
        while not header.endswith(b"\n"):
            chunk = posix.read(fd, 1)
            if not chunk:
                exit_now(120)
            header += chunk
        size = b_int(header)
        data = b""
        while b_len(data) < size:
            chunk = posix.read(fd, size - b_len(data))
            if not chunk:
                exit_now(120)
            data += chunk
        return data

    job: dict[str, Any] = marshal.loads(read_frame(0))
    null = posix.open("/dev/null", posix.O_RDONLY)
    posix.dup2(null, 0)
    posix.close(null)
    token: str = job["token"]
    verdict_fd = 3
    posix.set_inheritable(verdict_fd, False)
    harness_pid = getpid()
    forked: list[int] = []
    posix.register_at_fork(after_in_child=lambda: list_append(forked, 1))
    allow_concurrency: bool = job["allow_concurrency"]
    allow_sockets: bool = job["allow_sockets"]

    # -- the audit hook ----------------------------------------------------------------------------
    armed = [False]
    refused: list[str] = []
    """Refused tampering (settrace, gc, ctypes, exec…): a failure after one is a violation."""
    refused_frames: list[str] = []
    """Refused frame access and signal handlers: the standard library tries them too (enum,
    typing, logging, asyncio) and copes, so they are only noted."""
    refused_seen: set[str] = b_set()

    class SandboxRefusal(b_value_error):  # type: ignore[valid-type,misc]
        """A ValueError, as stdlib callers of sys._getframe expect (namedtuple, logging…)."""

    def refuse(what: str, *, frame: bool = False) -> None:
        if what not in refused_seen and b_len(refused_seen) < 40:
            set_add(refused_seen, what)
            list_append(refused_frames if frame else refused, what)
        raise SandboxRefusal(f"{what} is not allowed in the sandbox")

    frame_events = b_frozenset({"sys._getframe", "sys._current_frames", "sys._current_exceptions"})
    refused_events = b_frozenset(
        {
            "sys.settrace", "sys.setprofile", "sys.addaudithook",
            "gc.get_objects", "gc.get_referrers", "gc.get_referents",
            "code.__new__", "marshal.load", "marshal.loads",
            "os.exec", "os.posix_spawn", "os.spawn", "os.system", "os.forkpty",
            "subprocess.Popen", "cpython.PyInterpreterState_New",
        }
    )  # fmt: skip
    frame_attributes = b_frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
    function_parts = b_frozenset({"__code__", "__defaults__", "__kwdefaults__"})
    sealed_functions: dict[Any, str] = {}
    """The functions of the seal (by id, with their names): what runs when a test calls them is
    their code and defaults, which CPython lets change only through an audited setter."""
    refused_module_prefixes = ("ctypes", "_ctypes", "_test", "_xx")
    refused_modules = b_frozenset({"_signal", "_imp", "_posixsubprocess", "_thread"})
    """Imported afresh, these would bring back what step 4 took away."""

    def is_refused_module(name: str) -> bool:
        return name in refused_modules or str_startswith(name, refused_module_prefixes)

    doors: dict[str, Any] = {}

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if str_startswith(event, "proctor."):
            door = dict_get(doors, event)
            if door is not None:
                door(args)
            return
        if not armed[0]:
            return
        if event in refused_events or str_startswith(event, "ctypes."):
            if event == "code.__new__" and get_ident() in trusted_threads:
                return
            refuse(event)
        elif event in frame_events:
            refuse(event, frame=True)
        elif event == "object.__getattr__":
            if b_len(args) > 1 and b_type(args[1]) is b_str and args[1] in frame_attributes:
                refuse(f"reading {args[1]}", frame=True)
        elif event == "object.__setattr__":
            if b_len(args) > 1 and b_type(args[1]) is b_str and args[1] in function_parts:
                sealed = dict_get(sealed_functions, args[0])  # a function: hashed by identity
                if sealed is not None:
                    refuse(f"changing {sealed}.{args[1]}")
        elif event == "import":
            name = args[0] if args else ""
            if b_type(name) is b_str and is_refused_module(name):
                refuse(f"import {name}")
        elif event == "os.fork" and not allow_concurrency:
            refuse("os.fork")
        elif event == "socket.__new__" and not allow_sockets:
            refuse("socket")

    audit: bool = job["audit"]
    if audit:
        sys.addaudithook(hook)

    # -- the verdict -------------------------------------------------------------------------------
    def say(line: str) -> None:
        data = line.encode("utf-8", "replace")[:4000] + b"\n"  # one write up to PIPE_BUF: atomic
        write(verdict_fd, data)

    def verdict(status: str, reason: str) -> None:
        if forked or getpid() != harness_pid:
            exit_now(0)  # a forked copy of the harness never speaks for the program
        if refused_frames and status not in ("passed", "violation"):
            reason = f"{reason} (refused: {str_join(', ', refused_frames)})"
        say(f"verdict {token} {harness_pid} {status} {encode_json_string(reason)}")

    # -- plain data --------------------------------------------------------------------------------
    import collections

    scalar_types: tuple[type, ...] = (
        b_int, b_bool, b_float, b_complex, b_str, b_bytes, b_bytearray, b_type(None), b_range,
    )  # fmt: skip
    sequence_types: tuple[type, ...] = (
        b_list, b_tuple, b_set, b_frozenset, collections.deque,
        b_type({}.keys()), b_type({}.values()), b_type({}.items()),
    )  # fmt: skip
    mapping_types: tuple[type, ...] = (
        b_dict, collections.Counter, collections.OrderedDict, collections.defaultdict,
    )  # fmt: skip
    iterator_types: tuple[type, ...] = (
        b_type(b_iter([])), b_type(b_iter(())), b_type(b_iter(b_range(0))), b_type(b_iter("")),
        b_type(b_iter(b_set())), b_type(b_iter({})), b_type(b_iter({}.values())),
        b_type(b_iter({}.items())), b_type(i for i in b_range(0)), b_map, b_filter, b_zip,
        b_enumerate, b_reversed, b_type(b_reversed([])),
    )  # fmt: skip
    scalars = b_frozenset(b_id(t) for t in scalar_types)
    sequences = b_frozenset(b_id(t) for t in sequence_types)
    mappings = b_frozenset(b_id(t) for t in mapping_types)
    iterators = b_frozenset(b_id(t) for t in iterator_types)
    defaultdict, deque = collections.defaultdict, collections.deque
    factories = b_frozenset(
        b_id(t) for t in (None, *scalar_types[:7], b_list, b_dict, b_set, b_tuple)
    )
    view_types = sequence_types[5:]
    type_name = b_type.__dict__["__qualname__"].__get__
    type_module = b_type.__dict__["__module__"].__get__
    budget = 2_000_000
    """Objects walked per check: a reply of a hundred million nested lists is not plain data."""

    def describe(t: Any) -> str:
        if b_type(t) is not b_type:
            return "an object whose type has its own metaclass"
        module, name = type_module(t), type_name(t)
        module = module if b_type(module) is b_str else "?"
        where = "defined by the program" if module == "solution" else "not plain data"
        return f"{module}.{name}, {where}"

    def not_plain(value: Any) -> str | None:
        """Why `value` is not plain data (built-in scalars and containers of them), or None."""
        stack = [value]
        seen: set[int] = b_set()
        walked = 0
        while stack:
            v = list_pop(stack)
            t = b_id(b_type(v))
            if t in scalars:
                continue
            walked += 1
            if walked > budget:
                return "an object too large to check"
            if t in sequences or t in mappings:
                key = b_id(v)
                if key in seen:
                    continue
                set_add(seen, key)
                if t == b_id(defaultdict) and b_id(v.default_factory) not in factories:
                    return "a defaultdict whose default is made by the program"
                if t in mappings:
                    list_extend(stack, dict_keys(v))
                    list_extend(stack, dict_values(v))
                else:
                    list_extend(stack, v)
                continue
            return describe(b_type(v))
        return None

    violations: list[str] = []
    plain_arguments: list[Any] = []

    class Violation(b_base):  # type: ignore[valid-type,misc]
        """Ends the tests at once: tests do not catch BaseException."""

    def violated(reason: str) -> None:
        list_append(violations, reason)
        raise Violation(reason)

    def checked_items(name: str, iterator: Any) -> Any:
        while True:  # each step runs the candidate's code (a generator's body): a call of its
            try:
                item = call_candidate(b_next, iterator)
            except b_stop_iteration:
                return
            yield checked(name, item, "returned")

    def copied(value: Any, memo: dict[int, Any], depth: int = 0) -> Any:
        """A copy of plain `value` made by the harness: the tests compare it, and the program
        keeps no reference through which to change it later."""
        t = b_type(value)
        if b_id(t) in scalars:
            return b_bytearray(value) if t is b_bytearray else value
        key = b_id(value)
        if key in memo:
            return memo[key]
        if depth > 400:
            violated("returned an object too deeply nested to check")
        out: Any
        if t is b_list:
            out = memo[key] = []
            list_extend(out, [copied(x, memo, depth + 1) for x in value])
        elif t is b_tuple:
            out = memo[key] = b_tuple([copied(x, memo, depth + 1) for x in value])
        elif t is b_set or t is b_frozenset:
            out = memo[key] = t([copied(x, memo, depth + 1) for x in value])
        elif t is deque:
            out = memo[key] = deque([copied(x, memo, depth + 1) for x in value], value.maxlen)
        elif t in view_types:
            mapping = copied(b_dict(value.mapping), memo, depth + 1)
            kind = view_types.index(t)
            out = memo[key] = (b_dict.keys, b_dict.values, b_dict.items)[kind](mapping)
        else:  # a mapping
            out = memo[key] = defaultdict(value.default_factory) if t is defaultdict else t()
            for k in b_list(dict_keys(value)):
                dict_setitem(out, copied(k, memo, depth + 1),
                             copied(dict_getitem(value, k), memo, depth + 1))  # fmt: skip
        return out

    def checked(name: str, value: Any, what: str) -> Any:
        why = not_plain(value)
        if why is not None:
            violated(f"{name} {what} an object that compares equal to anything ({why})")
        return copied(value, {})

    def guard(name: str, target: Any) -> Any:
        def guarded(*args: Any, **kwargs: Any) -> Any:
            for a in (*args, *kwargs.values()):
                if not_plain(a) is None and b_len(plain_arguments) < 256:
                    list_append(plain_arguments, a)
            result = call_candidate(target, *args, **kwargs)
            for a in plain_arguments:  # this call's, and earlier calls' the program may keep
                if not_plain(a) is not None:
                    checked(name, a, "left in an argument")
            if b_id(b_type(result)) in iterators:
                return checked_items(name, result)
            return checked(name, result, "returned")

        return guarded

    # -- 3. prelude, the tests' modules and their snapshot ---------------------------------------
    def compiled(source: str, filename: str) -> Any:
        return b_compile(source, filename, "exec", dont_inherit=True, optimize=0)

    sealed_modules: list[tuple[str, Any, bool]] = []
    real_modules: dict[str, Any] = {}
    type_type = b_type

    def names_used(codes: list[Any]) -> set[str]:
        found: set[str] = b_set()
        todo = b_list(codes)
        while todo:
            code = todo.pop()
            found.update(code.co_names)
            todo.extend(c for c in code.co_consts if b_type(c) is code_type)
        return found

    def tests_namespace(names: dict[str, Any], entry: str) -> dict[str, Any]:
        """What MBPP's asserts see of the solution: the names they use, functions guarded,
        modules as they were before it ran; never a name that would hide a builtin (a `set`
        of the solution's making would make `set(f(x)) == set(y)` pass), but the entry point's."""
        space: dict[str, Any] = {}
        for key in referenced:
            if key not in names or (key in pristine and key != entry):
                continue
            value = dict_getitem(names, key)
            kind = b_type(value)
            if key == entry and b_callable(value):
                space[key] = guard(key, value)
            elif key in real_modules:  # whatever the solution bound to that name
                space[key] = real_modules[key]
            elif kind is function_type:
                space[key] = guard(key, value)
            elif kind is module_type:
                continue
            elif kind is type_type:
                space[key] = value  # a class of the solution the set-up code builds from
            else:
                space[key] = checked(key, value, "holds")
        return space

    # -- the seal: what the tests reach, as it was before the candidate ran ------------------------
    # The modules the tests and the prelude import (and `builtins`, `collections` and its Counter,
    # which the harness builds copies with) are walked once, before the candidate runs: every
    # module's class and dict, and below it the classes (metaclass, MRO, own dict), functions
    # (closure cells; code and defaults: see the hook), tables (dicts, lists, sets:
    # `copy._deepcopy_dispatch`) and instances (class, dict: `random._inst`) that hang from it,
    # as far as the modules the tests' code names (the others by class and dict alone). What is
    # recorded is the objects themselves, kept here and compared with `is`. The check reads every
    # probe again with C functions alone (map, operator.is_, dict views, descriptors), so that
    # no code of the candidate's runs while it looks, with the cyclic collector paused so that
    # no finalizer does. A function's code and defaults are never read (each read, like each
    # id(), is an audit event, and the hook is Python): their setters are audited events, and
    # the hook refuses them on sealed functions.
    chain_from = itertools.chain.from_iterable
    call_with, is_same = operator.call, operator.is_
    type_dict = b_type.__dict__
    mro_of = type_dict["__mro__"].__get__
    class_dict = type_dict["__dict__"].__get__
    flags_of = type_dict["__flags__"].__get__
    proxy_type = b_type(b_vars(b_type))
    proxy_keys, proxy_values, proxy_get = proxy_type.keys, proxy_type.values, proxy_type.get
    cell_contents = types.CellType.__dict__["cell_contents"].__get__
    method_type, builtin_method_type = types.MethodType, types.BuiltinMethodType
    gc_enabled, gc_disable, gc_enable = gc.isenabled, gc.disable, gc.enable
    immutable_type = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE: built-in types and their like
    random_seed = _random.Random.seed
    int_from_bytes = b_int.from_bytes
    missing = b.object()
    enum_caches = b_frozenset({"_value2member_map_", "_unhashable_values_"})
    """A Flag enum caches there the combinations made (`re.I | re.M`): bound, not compared."""

    one_fns: list[Any] = []  # one(arg) is an object that must stay the same object
    one_args: list[Any] = []
    one_before: list[Any] = []
    one_what: list[str] = []
    table_fns: list[Any] = []  # fn(arg) iterates objects that must stay the same, in order
    table_args: list[Any] = []
    table_before: list[tuple[Any, ...]] = []
    table_what: list[str] = []
    sized: list[Any] = []  # mappings whose length must stay
    sealed_mappings: list[tuple[str, str, Any, dict[Any, Any]]] = []  # (name, kind, mapping, copy)
    seal_seen: set[int] = b_set()
    caches: list[dict[Any, Any]] = []  # emptied before each check (re's compiled patterns)
    resets: list[tuple[dict[str, Any], str, Any]] = []  # set back before each check
    reseeded: list[Any] = []  # Random instances the tests draw from: reseeded after each check
    expected: list[Any] = [[], []]  # the objects the probes give, in order; the lengths

    def entry_name(name: str, key: Any) -> str:
        """`copy.deepcopy`, `copy._deepcopy_dispatch[list]`: no code of the key's runs."""
        if b_type(key) is b_str:
            return f"{name}.{key}"
        if b_type(key) is b_type:
            return f"{name}[{type_name(key)}]"
        return f"{name}[…]"

    def probe_one(fn: Any, arg: Any, what: str) -> None:
        list_append(one_fns, fn)
        list_append(one_args, arg)
        list_append(one_before, fn(arg))
        list_append(one_what, what)

    def probe_table(fn: Any, arg: Any, what: str) -> None:
        list_append(table_fns, fn)
        list_append(table_args, arg)
        list_append(table_before, b_tuple(fn(arg)))
        list_append(table_what, what)

    def seal_mapping(mapping: Any, name: str, kind: str) -> None:
        is_dict = b_type(mapping) is b_dict
        probe_table(dict_keys if is_dict else proxy_keys, mapping, "")
        probe_table(dict_values if is_dict else proxy_values, mapping, "")
        list_append(sized, mapping)
        list_append(sealed_mappings, (name, kind, mapping, b_dict(mapping)))

    def seal_module(name: str, module: Any, deep: bool) -> None:
        probe_one(b_type, module, f"the class of the module {name}")
        probe_one(modules.get, name, f"replaced the module {name} that the tests use")
        namespace = module.__dict__
        seal_mapping(namespace, name, "module")
        if not deep:
            return
        for key, value in b_list(namespace.items()):
            if b_type(key) is b_str and str_startswith(key, "__"):
                continue  # __builtins__ (sealed as builtins), __spec__…: bound, not walked
            if b_type(value) is b_dict and name == "re" and str_startswith(key, "_cache"):
                list_append(caches, value)  # the compiled patterns: emptied, not compared
                continue
            seal_value(value, f"{name}.{key}", 1)

    def seal_value(value: Any, name: str, depth: int) -> None:
        key = b_id(value)
        kind = b_type(value)
        if key in seal_seen or depth > 5 or kind is module_type or b_len(one_fns) > 50_000:
            return
        set_add(seal_seen, key)
        if kind is function_type:
            dict_setitem(sealed_functions, value, name)  # its code and defaults: see the hook
            for cell in value.__closure__ or ():
                try:
                    inside = cell_contents(cell)
                except b_value_error:
                    continue
                probe_one(cell_contents, cell, f"{name} (its closure)")
                seal_value(inside, name, depth + 1)
        elif kind is method_type:
            seal_value(value.__func__, name, depth + 1)
            seal_value(value.__self__, f"{name}.__self__", depth + 1)
        elif kind is builtin_method_type:
            owner = value.__self__
            if owner is not None and b_type(owner) is not module_type:
                seal_value(owner, f"{name}.__self__", depth + 1)
        elif kind is b_classmethod or kind is b_staticmethod:
            seal_value(value.__func__, name, depth + 1)
        elif kind is b_property:
            for part in (value.fget, value.fset, value.fdel):
                seal_value(part, name, depth + 1)
        elif kind is b_dict:
            seal_mapping(value, name, "table")
            for k, item in b_list(value.items()):
                seal_value(item, entry_name(name, k), depth + 1)
        elif kind is b_list or kind is b_set:
            probe_table(b_tuple, value, name)
        elif b_isinstance(value, b_type):
            seal_class(value, name, depth)
        elif not flags_of(kind) & immutable_type:
            seal_instance(value, kind, name, depth)

    def seal_class(cls: Any, name: str, depth: int) -> None:
        if flags_of(cls) & immutable_type:
            return
        probe_one(b_type, cls, f"the metaclass of {name}")
        probe_one(mro_of, cls, f"the bases of {name}")
        own = class_dict(cls)
        seal_mapping(own, name, "class")
        for key, value in b_list(own.items()):
            if key not in enum_caches:
                seal_value(value, f"{name}.{key}", depth + 1)
        for base in mro_of(cls)[1:]:
            seal_value(base, f"{name}'s base {type_name(base)}", depth + 1)
        seal_value(b_type(cls), f"the metaclass of {name}", depth + 1)

    def seal_instance(value: Any, kind: Any, name: str, depth: int) -> None:
        probe_one(b_type, value, f"the class of {name}")
        seal_value(kind, f"the class of {name}", depth + 1)
        for owner in mro_of(kind):
            slot = proxy_get(class_dict(owner), "__dict__")
            if slot is not None:
                getter = slot.__get__
                probe_one(getter, value, f"{name}.__dict__")
                own = getter(value)
                seal_mapping(own, name, "instance")
                for item in b_list(dict_values(own)):
                    seal_value(item, name, depth + 1)
                break

    def seal(sealed: list[tuple[str, Any, bool]], used: dict[str, Any]) -> None:
        seal_mapping(pristine, "the tests' builtins", "builtins")
        for name, module, deep in sealed:
            seal_module(name, module, deep)
        for name, value in b_sorted(used.items()):
            seal_value(value, name, 1)
        random: Any = dict_get(modules, "random")
        inst = random.__dict__.get("_inst") if random is not None else None
        if inst is not None and b_type(inst) is random.Random and b_id(inst) in seal_seen:
            list_append(reseeded, inst)
            list_append(resets, (inst.__dict__, "gauss_next", None))
        expected[:] = measured()

    def measured() -> list[Any]:
        # not id(): each call of it is an audit event, and the hook is Python
        objects = b_list(b_map(call_with, one_fns, one_args))
        list_extend(objects, chain_from(b_map(call_with, table_fns, table_args)))
        return [objects, b_list(b_map(b_len, sized))]

    def unchanged() -> bool:
        objects, lengths = measured()
        before, before_lengths = expected
        return (
            lengths == before_lengths  # ints
            and b_len(objects) == b_len(before)
            and b_all(b_map(is_same, objects, before))
        )

    def checkpoint() -> None:
        """Raise Violation if the sealed state changed; then reseed the tests' random draws
        from a secret the candidate never sees. Before the tests and after every call."""
        for cache in caches:
            dict_clear(cache)
        for namespace, key, value in resets:
            dict_setitem(namespace, key, value)
        collecting = gc_enabled()
        gc_disable()  # no finalizer of the candidate's runs between looking and reseeding
        try:
            if not unchanged():
                explain()
            for inst in reseeded:
                random_seed(inst, int_from_bytes(urandom(32), "big"))
        finally:
            if collecting:
                gc_enable()

    def explain() -> None:
        """Name the first change, or accept new submodules of a sealed package (an import of
        `collections.abc` sets `collections.abc`) and seal the state as it is now."""
        changes: list[str] = []
        added: list[tuple[dict[Any, Any], Any, Any]] = []
        for name, kind, mapping, before in sealed_mappings:
            for key in b_list(dict_keys(before)):
                if mapping.get(key, missing) is not dict_getitem(before, key):
                    list_append(changes, f"changed {entry_name(name, key)}, which the tests use")
            if b_len(mapping) == b_len(before):
                continue
            for key in b_list(mapping.keys()):
                if b_type(key) is b_str and key in before:
                    continue
                value = mapping.get(key, missing)
                submodule = (
                    kind == "module" and b_type(key) is b_str and b_type(value) is module_type
                    and key not in pristine and dict_get(modules, f"{name}.{key}") is value
                )  # fmt: skip
                if submodule:
                    list_append(added, (before, key, value))
                else:
                    list_append(
                        changes, f"added {entry_name(name, key)}, which the tests would see"
                    )
        for fn, arg, before_one, what in b_zip(one_fns, one_args, one_before, one_what):
            if call_with(fn, arg) is not before_one:
                replaced = str_startswith(what, "replaced")
                list_append(changes, what if replaced else f"changed {what}")
        for fn, arg, before_items, what in b_zip(table_fns, table_args, table_before, table_what):
            items = b_tuple(call_with(fn, arg))
            same = b_len(items) == b_len(before_items)
            if same and b_any(a is not z for a, z in b_zip(items, before_items)):
                same = False
            if not same and what:  # a mapping's probes ("") are explained key by key above
                list_append(changes, f"changed {what}, which the tests use")
        if changes:
            violated(f"the program {changes[0]}")
        if not added:
            violated("the program reordered a namespace the tests use")
        for before, key, value in added:
            dict_setitem(before, key, value)
        for i in b_range(b_len(table_fns)):
            table_before[i] = b_tuple(call_with(table_fns[i], table_args[i]))
        expected[:] = measured()

    def call_candidate(target: Any, *args: Any, **kwargs: Any) -> Any:
        """Once its module is loaded, the candidate's code runs in here alone: the seal is
        checked before (what ran since the last check) and after, and the cyclic collector,
        paused while the tests run, runs only in here, so that no finalizer of the candidate's
        can patch a module after a check and have a fake undo itself before the next."""
        checkpoint()
        gc_enable()
        try:
            return target(*args, **kwargs)
        finally:
            gc_disable()
            checkpoint()

    failure: list[Any] = []  # the exception that ended the program or its tests, if any
    referenced: set[str] = b_set()
    used_in_tests: set[str] = b_set()
    prelude_ns: dict[str, Any] = {"__name__": "solution", "__builtins__": pristine}
    try:
        prelude = compiled(job["prelude"], "prompt.py")
        b_exec(prelude, prelude_ns)
        candidate = compiled(job["candidate"], "solution.py")
        tests = [compiled(source, "<tests>") for source in job["tests"]]
        # what runs while the tests run: their code and the bodies of the prompt's helpers (its
        # top level, imports and annotations, ran already); the modules named there are walked
        # deep, the others (typing, for annotations) are sealed by their class and dict alone
        helpers = [c for c in prelude.co_consts if b_type(c) is code_type]
        used_in_tests = names_used([*tests, *helpers])
        # MBPP's asserts may name a module only the solution imports (math, sys): every name
        # they use is tried as a module, so that the tests get it as it was before the solution
        referenced = names_used(tests) if job["tests_see"] == "solution" else b_set()
        for name in b_sorted({*job["modules"], *(n for n in referenced if n not in pristine)}):
            try:
                module = b_import(name)
                for part in name.split(".")[1:]:
                    module = b_getattr(module, part)
            except b_exception:
                continue
            if b_type(module) is module_type:
                deep = name.split(".")[0] in used_in_tests and name not in ("sys", "builtins")
                list_append(sealed_modules, (name, module, deep))
                real_modules[name] = module
    except b_base as e:  # a syntax error in the candidate's code is its own failure
        failure.append(e)

    # -- 4. the doors a hook cannot watch ----------------------------------------------------------
    # Replaced by the functions of WRAPPERS, which hold nothing: they pass their call to the
    # hook as a "proctor.*" event, and the hook (unreachable: CPython lists no hooks) does the
    # work with the originals. A wrapper with a closure would hand the candidate, through
    # `__closure__`, the originals and the `armed` flag itself.
    original_create_builtin = _imp.create_builtin
    original_create_dynamic = _imp.create_dynamic
    original_exec_builtin = _imp.exec_builtin
    original_coroutine = types.coroutine
    _thread = sys.modules["_thread"]
    original_start_new_thread = _thread.start_new_thread
    get_ident = _thread.get_ident
    trusted_threads: set[int] = b_set()
    source_loader = sys.modules["_frozen_importlib_external"].SourceLoader
    original_get_code = source_loader.get_code
    namespace = types.SimpleNamespace
    rebuilt = (_signal, _imp, _thread, _posixsubprocess)

    def box_of(value: Any) -> list[Any]:
        if b_type(value) is not b_list:
            raise b_type_error("the last argument must be a list")
        return value  # type: ignore[no-any-return]

    def plain_spec(spec: Any) -> Any:
        """The spec as plain strings: a spec of the candidate's could answer one name to us
        and another to the original."""
        name, origin = spec.name, b_getattr(spec, "origin", None)
        if b_type(name) is not b_str or not (origin is None or b_type(origin) is b_str):
            raise b_type_error("spec.name and spec.origin must be str")
        if armed[0] and is_refused_module(name):
            refuse(f"re-creating {name}")
        return namespace(name=name, origin=origin)

    def door_refuse(args: tuple[Any, ...]) -> None:
        what = args[0] if args else "?"
        what = what if b_type(what) is b_str else "?"
        refuse(what, frame=what == "signal handlers")

    def door_create_builtin(args: tuple[Any, ...]) -> None:
        spec, _, box = args
        list_append(box_of(box), original_create_builtin(plain_spec(spec)))

    def door_create_dynamic(args: tuple[Any, ...]) -> None:
        spec, file, box = args
        spec = plain_spec(spec)
        made = (
            original_create_dynamic(spec) if file is None else original_create_dynamic(spec, file)
        )
        list_append(box_of(box), made)

    def door_exec_builtin(args: tuple[Any, ...]) -> None:
        module, box = args
        if armed[0] and b_any(module is m for m in rebuilt):
            refuse("re-running a built-in module")
        list_append(box_of(box), original_exec_builtin(module))

    def door_coroutine(args: tuple[Any, ...]) -> None:
        # types.coroutine marks a generator function with code.replace() (asyncio does at
        # import): the one code.__new__ let through, done here on an exact function whose code
        # is a real code object, changing its flags alone, so that no code of the candidate's
        # (or of a module it may have patched, as functools) runs while it is let through
        func, box = args
        box = box_of(box)
        if b_type(func) is function_type and b_type(func.__code__) is code_type:
            code = func.__code__
            if code.co_flags & 0x180 or not code.co_flags & 0x20:
                list_append(box, original_coroutine(func))  # no code.replace on this path
                return
            ident = get_ident()
            set_add(trusted_threads, ident)
            try:
                marked = code.replace(co_flags=code.co_flags | 0x100)
            finally:
                trusted_threads.discard(ident)
            func.__code__ = marked
            list_append(box, func)
            return
        list_append(box, original_coroutine(func))

    def door_start_new_thread(args: tuple[Any, ...]) -> None:
        positional, keywords, box = args
        if armed[0] and not allow_concurrency:
            refuse("threads")
        list_append(box_of(box), original_start_new_thread(*positional, **keywords))

    def door_get_code(args: tuple[Any, ...]) -> None:
        # marshal can make code objects of any bytecode, which can read any memory: once armed
        # it is refused, and modules are compiled from their source instead
        loader, fullname, box = args
        if not armed[0]:
            list_append(box_of(box), original_get_code(loader, fullname))
            return
        path = loader.get_filename(fullname)
        list_append(box_of(box), loader.source_to_code(loader.get_data(path), path))

    doors.update(
        {
            "proctor.refuse": door_refuse,
            "proctor.create_builtin": door_create_builtin,
            "proctor.create_dynamic": door_create_dynamic,
            "proctor.exec_builtin": door_exec_builtin,
            "proctor.coroutine": door_coroutine,
            "proctor.start_new_thread": door_start_new_thread,
            "proctor.get_code": door_get_code,
        }
    )
    if audit:
        wrappers: dict[str, Any] = {"__builtins__": {}, "_audit": sys.audit}
        b_exec(b_compile(wrappers_source, "<proctor-doors>", "exec", dont_inherit=True), wrappers)
        _signal.signal = wrappers["signal"]
        _posixsubprocess.fork_exec = wrappers["fork_exec"]  # subprocess imports; nothing spawns
        _imp.create_builtin = wrappers["create_builtin"]
        _imp.create_dynamic = wrappers["create_dynamic"]
        _imp.exec_builtin = wrappers["exec_builtin"]
        types.coroutine = wrappers["coroutine"]
        # no audit event starts a thread: _thread's door is replaced (and threading's copy)
        for name in ("start_new_thread", "start_new"):
            b_setattr(_thread, name, wrappers["start_new_thread"])
        if "threading" in sys.modules:
            b_setattr(sys.modules["threading"], "_start_new_thread", wrappers["start_new_thread"])
        source_loader.get_code = wrappers["get_code"]

    # -- 5-7. arm, then run the program and its tests ----------------------------------------------
    # the prompt's names the tests or its helpers use (`from collections import Counter`), and
    # Counter, whose copies the harness makes of what the candidate returns
    used_names = {k: v for k, v in prelude_ns.items() if k in used_in_tests and k != "__builtins__"}
    used_names["collections.Counter"] = collections.Counter
    seal([*sealed_modules, ("builtins", builtins, False), ("collections", collections, False)],
         used_names)  # fmt: skip
    phase = "loading"
    armed[0] = True
    say("started")
    if not failure:
        try:
            solution = module_type("solution")
            sys.modules["solution"] = solution
            # its own builtins: what it rebinds there, only its own code sees
            solution.__dict__["__builtins__"] = b_dict(pristine)
            b_exec(candidate, solution.__dict__)
            checkpoint()
            gc_disable()
            phase = "tests"
            entry: str = job["entry_point"]
            names = solution.__dict__
            if job["tests_see"] == "prelude":
                test_ns = b_dict(prelude_ns)
                if entry:
                    if entry not in names:
                        raise b_name_error(f"the program does not define {entry}")
                    test_ns[entry] = guard(entry, names[entry])
            else:
                test_ns = tests_namespace(names, entry)
            test_ns["__builtins__"] = pristine
            test_ns["__name__"] = "__tests__"
            for code in tests:
                b_exec(code, test_ns)
            call: str = job["call"]
            if call:
                if entry not in test_ns:
                    raise b_name_error(f"the program does not define {entry}")
                test_ns[call](test_ns[entry])
            checkpoint()
        except b_base as e:  # anything at all, Violation and SystemExit included
            failure.append(e)

    # -- 8. the verdict ---------------------------------------------------------------------------
    error = failure[0] if failure else None
    kind = b_type(error)
    code = 0
    if violations:
        verdict("violation", violations[0])
        code = 1
    elif error is None:
        noted = [*refused, *refused_frames]
        verdict("passed", f"refused: {str_join(', ', noted)}" if noted else "")
    elif refused:
        verdict("violation", f"tried {refused[0]} (refused by the sandbox)")
        code = 1
    elif kind is b_system_exit:
        exit_code = error.code
        if exit_code is None or (b_type(exit_code) is b_int and exit_code == 0):
            verdict("exited", f"the program called sys.exit(0) while {phase}")
        else:
            verdict("failed", f"the program called sys.exit() while {phase}")
        code = 1
    elif kind is b_memory_error:
        verdict("memory", f"MemoryError while {phase}")
        code = 1
    elif kind is b_recursion_error:
        verdict("failed", f"RecursionError while {phase}")
        code = 1
    elif kind is b_syntax_error:
        verdict("failed", "the program does not compile (SyntaxError)")
        code = 1
    else:
        where = (
            "the program raised an exception while loading"
            if phase == "loading"
            else ("a test failed" if kind is b_assertion_error else "an exception in the tests")
        )
        verdict("failed", where)
        code = 1

    # The verdict is written: nothing the candidate does now can change it. Diagnostics follow.
    armed[0] = False
    if error is not None:
        try:
            import linecache
            import traceback

            sources = (("solution.py", job["candidate"]), ("<tests>", "\n".join(job["tests"])))
            for name, text in sources:
                lines = text.splitlines(True)
                linecache.cache[name] = (b_len(text), None, lines, name)
            sys.stderr.write("".join(traceback.format_exception(error)))
        except b_base:
            pass
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 - no contextlib here: the candidate may have replaced it
            stream.flush()
        except b_base:
            pass
    exit_now(code)


if __name__ == "__proctor_harness__":
    _main()
