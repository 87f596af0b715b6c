#!/usr/bin/env python3
"""
layers.py: checks that the source tree is layered (run by ctest as `layering`).

What it checks, and how:
  1. includes: every `#include "..."` of the sources (C, headers, OpenCL C: the library, the
     CLI, rapidsnark's C API) resolved against the including file's folder and the build's
     include folders. No include may climb with "../"; the file graph and the folder graph
     must have no cycle, and no folder may include from a folder of a higher layer.
  2. calls: `nm` over the object files of the library, the CLI and rapidsnark's C API
     (defined vs undefined symbols) gives the graph "file A calls a function or uses data
     defined in file B". The file graph and the folder graph must have no cycle, and no
     folder may call a folder of a higher layer.
  3. top-level folders: the same two graphs folded onto the top-level folders (arith, runtime,
     kernels_cpu, kernels_cl, host) in the order of TOP_ORDER; an arrow from a folder to one
     later in that order is reported (KNOWN_TOP_ARROWS: the ones left for later, printed, not
     failed; an arrow that disappears must leave that list too).
  4. the API layer: only objects of host/api/ define or use an hpr_ symbol; nothing else in
     the library enters the public API (its lock, its argument checks) from inside.
  5. exports: `nm -D --defined-only` over the shared library lists only `hpr_` symbols (the
     public API of host/include/hyprove.h).

Usage: layers.py SOURCE_DIR BUILD_DIR [--verbose]
Exit status 0 when every check passes; otherwise each violation is printed and the status is 1.
"""
import os
import re
import subprocess
import sys

# The layers, lowest first. A folder may include and call its own layer and the layers
# below it, never one above. (kernels_cl holds OpenCL C only: it is built by the OpenCL
# backend at run time, so the host reaches it as embedded text, not by calls.)
LAYERS = [
    ("arith",),                                  # shared C11 / OpenCL C arithmetic
    ("runtime/base",),                           # pool, memory, files, CPU features, checks
    ("kernels_cpu", "kernels_cl"),               # the kernels
    ("runtime/opencl", "runtime/sched"),         # OpenCL backend, scheduler and profile
    ("host/include",),                           # the public header: the API's types, used by
                                                 # every layer of the library
    ("host/core",),                              # the library's core: call state, knobs, progress,
                                                 # devices and their rule, memory limit, CPU tiers
    ("host/msm", "host/ntt"),                    # the engines of the two kernels
    ("host/commit", "host/groth16", "host/calibrate"),  # the engines built on them
    ("host/cluster",),                           # the engines across ranks
    ("host/api",),                               # the only entries: hpr_ functions are defined here
    ("host/cli", "host/rapidsnark"),             # the CLI; rapidsnark's C API (its own library)
]
# Folders that may reach only the public API of the library: its header (includes) and its
# entries (calls).
PUBLIC_API = {"host/include", "host/api"}
PUBLIC_ONLY = {"host/cli": PUBLIC_API, "host/rapidsnark": PUBLIC_API}
PUBLIC_HEADER = "host/include/hyprove.h"
API_FOLDER = "host/api"
# The top-level folders, lowest first, and the arrows between them not yet removed.
TOP_ORDER = ["arith", "runtime", "kernels_cpu", "kernels_cl", "host"]
KNOWN_TOP_ARROWS = set()  # none left: runtime/opencl/ takes the curve tables and the Poseidon2
                          # parameters from arith/ (msm_ops.h, poseidon2_params.h), as kernels_cpu/ does
INCLUDE_DIRS = ["host/include", "."]
SOURCE_DIRS = ["arith", "runtime", "kernels_cpu", "kernels_cl", "host"]
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path):
    return os.path.dirname(path)


def layer_of(folder):
    for rank, group in enumerate(LAYERS):
        if folder in group:
            return rank
    return None


def source_files(root):
    out = []
    for top in SOURCE_DIRS:
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if n.endswith((".c", ".h", ".cl")):
                    out.append(os.path.relpath(os.path.join(dirpath, n), root))
    return sorted(out)


def resolve_include(root, src, name):
    for base in [folder_of(src)] + INCLUDE_DIRS:
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.exists(os.path.join(root, cand)):
            return cand
    return None


def include_graph(root, problems):
    graph = {}
    for src in source_files(root):
        with open(os.path.join(root, src), encoding="utf-8") as f:
            text = f.read()
        deps = set()
        for name in INCLUDE_RE.findall(text):
            if name.startswith("../") or "/../" in name:
                problems.append(f"include climbs with '../': {src}: \"{name}\"")
            target = resolve_include(root, src, name)
            if target is None:
                continue  # generated at build time (embedded kernels) or a system header
            if target != src:
                deps.add(target)
        graph[src] = deps
    return graph


def nm_symbols(path, dynamic=False):
    args = ["nm", "-P"] + (["-D", "--defined-only"] if dynamic else []) + [path]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            syms.append((parts[0], parts[1]))
    return syms


OBJECT_DIRS = ["hyprove_objects.dir", "hyprove_cli.dir", "hyprove_rapidsnark_shared.dir"]


def object_files(build, dirs=OBJECT_DIRS):
    objs = {}
    for d in dirs:
        objdir = os.path.join(build, "CMakeFiles", d)
        for dirpath, _, names in os.walk(objdir):
            for n in names:
                if n.endswith(".c.o"):
                    full = os.path.join(dirpath, n)
                    rel = os.path.relpath(full, objdir)[: -len(".o")]
                    objs[rel] = full
    return objs


def call_graph(root, build, api_users=None):
    """The call graph; api_users (a dict, may be None) gets each library source outside
    API_FOLDER that defines or uses an hpr_ symbol, with those symbols."""
    defined = {}
    used = {}
    library = object_files(build, ["hyprove_objects.dir"])
    for src, obj in object_files(build).items():
        if not os.path.exists(os.path.join(root, src)):
            continue  # generated sources (the embedded kernels): data only
        used[src] = set()
        for name, kind in nm_symbols(obj):
            if kind == "U":
                used[src].add(name)
            elif kind in "TDBRVWCG":
                defined.setdefault(name, src)
            if api_users is not None and src in library and name.startswith("hpr_") \
                    and folder_of(src) != API_FOLDER and kind in "UTDBRVWCG":
                api_users.setdefault(src, set()).add(name)
    graph = {}
    for src, names in used.items():
        graph[src] = {defined[n] for n in names if n in defined and defined[n] != src}
    return graph


def sccs(graph):
    """Tarjan's strongly connected components (iterative); returns those of size > 1."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    nodes = set(graph) | {d for ds in graph.values() for d in ds}
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def folder_graph(graph):
    fg = {}
    for a, ds in graph.items():
        for b in ds:
            fa, fb = folder_of(a), folder_of(b)
            if fa != fb:
                fg.setdefault(fa, set()).add(fb)
    return fg


def check_graph(kind, graph, problems, verbose):
    for comp in sccs(graph):
        problems.append(f"{kind} cycle between files: {' <-> '.join(comp)}")
    fg = folder_graph(graph)
    for comp in sccs(fg):
        problems.append(f"{kind} cycle between folders: {' <-> '.join(comp)}")
    for fa, fbs in sorted(fg.items()):
        for fb in sorted(fbs):
            la, lb = layer_of(fa), layer_of(fb)
            if la is None or lb is None:
                problems.append(f"{kind}: folder outside the layer table: {fa if la is None else fb}")
            elif lb > la:
                edges = sorted(f"{a} -> {b}" for a, ds in graph.items() for b in ds
                               if folder_of(a) == fa and folder_of(b) == fb)
                problems.append(f"{kind} climbs a layer: {fa} -> {fb} ({'; '.join(edges)})")
    for fa, fbs in sorted(fg.items()):
        if fa in PUBLIC_ONLY:
            for fb in sorted(fbs):
                if fb not in PUBLIC_ONLY[fa]:
                    problems.append(f"{kind}: {fa} reaches {fb}, not only the public API")
    if verbose:
        print(f"{kind}: {len(graph)} files, {sum(len(d) for d in graph.values())} file edges; folder edges:")
        for fa, fbs in sorted(fg.items()):
            print(f"  {fa} -> {', '.join(sorted(fbs))}")


def top_of(folder):
    return folder.split("/")[0]


def check_top(kind, graph, problems, verbose):
    arrows = {}
    for a, ds in graph.items():
        for b in ds:
            ta, tb = top_of(folder_of(a)), top_of(folder_of(b))
            if ta != tb:
                arrows.setdefault((ta, tb), []).append(f"{a} -> {b}")
    seen_known = set()
    for (ta, tb), edges in sorted(arrows.items()):
        if ta not in TOP_ORDER or tb not in TOP_ORDER:
            problems.append(f"{kind}: top-level folder outside TOP_ORDER: {ta if ta not in TOP_ORDER else tb}")
        elif TOP_ORDER.index(tb) > TOP_ORDER.index(ta):
            if (ta, tb) in KNOWN_TOP_ARROWS:
                seen_known.add((ta, tb))
                print(f"layers: {kind}: known arrow up between top-level folders, left for later: {ta} -> {tb} "
                      f"({'; '.join(sorted(edges)[:3])})")
            else:
                problems.append(f"{kind} climbs between top-level folders: {ta} -> {tb} ({'; '.join(sorted(edges))})")
    return seen_known


def check_api_layer(api_users, problems):
    for src in sorted(api_users):
        problems.append(f"outside {API_FOLDER}/, {src} defines or uses the public API: "
                        f"{', '.join(sorted(api_users[src]))}")


def print_levels(graph):
    """Each file's level in an acyclic call graph: 0 calls no other file, else 1 + the highest
    level it calls. Printed per folder, so the layers inside host/ can be read off."""
    level = {}

    def lv(f, seen=()):
        if f in level:
            return level[f]
        if f in seen:
            return 0  # a cycle: reported elsewhere
        level[f] = 1 + max((lv(g, seen + (f,)) for g in graph.get(f, ())), default=-1)
        return level[f]

    for f in graph:
        lv(f)
    by_folder = {}
    for f, l in level.items():
        by_folder.setdefault(folder_of(f), []).append((l, os.path.basename(f)))
    for folder in sorted(by_folder):
        print(f"  levels in {folder}: " + ", ".join(f"{n} {l}" for l, n in sorted(by_folder[folder])))


def check_exports(root, build, problems, verbose):
    libs = [n for n in os.listdir(build) if n.startswith("libhyprove.so")] if os.path.isdir(build) else []
    if not libs:
        problems.append(f"no libhyprove.so in {build}")
        return
    lib = os.path.join(build, sorted(libs, key=len)[0])
    exported = [n for n, kind in nm_symbols(lib, dynamic=True) if kind in "TDBRVWiu"]
    bad = sorted(n for n in exported if not n.startswith("hpr_"))
    for n in bad:
        problems.append(f"the shared library exports a non-API symbol: {n}")
    with open(os.path.join(root, PUBLIC_HEADER), encoding="utf-8") as f:
        header = f.read()
    for n in sorted(exported):
        if n.startswith("hpr_") and not re.search(r"\b" + re.escape(n) + r"\s*\(", header):
            problems.append(f"the shared library exports {n}, which {PUBLIC_HEADER} does not declare")
    if verbose:
        print(f"exports: {len(exported)} symbols, {len(bad)} outside the API")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    verbose = "--verbose" in sys.argv
    if len(args) != 2:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    root, build = os.path.abspath(args[0]), os.path.abspath(args[1])
    problems = []
    includes = include_graph(root, problems)
    check_graph("include", includes, problems, verbose)
    api_users = {}
    calls = call_graph(root, build, api_users)
    check_graph("call", calls, problems, verbose)
    known = check_top("include", includes, problems, verbose) | check_top("call", calls, problems, verbose)
    for arrow in sorted(KNOWN_TOP_ARROWS - known):
        problems.append(f"KNOWN_TOP_ARROWS lists {arrow[0]} -> {arrow[1]}, which is gone: remove it from the list")
    check_api_layer(api_users, problems)
    if verbose:
        print_levels(calls)
    check_exports(root, build, problems, verbose)
    for p in problems:
        print("layers: " + p)
    print(f"layers: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
