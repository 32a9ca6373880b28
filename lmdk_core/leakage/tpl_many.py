r"""The largest landmark TPL of many allocations at once (the population audit's column).

:func:`~lmdk_core.leakage.tpl.max_landmark_tpl` (Katsomallos et al., CODASPY'22, on Cao,
Yoshikawa, Xiao, Xiong's BPL/FPL, ICDE'17 / TKDE'18) runs, for one user, a numpy loop
of about a dozen calls per timestamp over that user's restarted recursions
(:mod:`~lmdk_core.leakage.restarts`); on a partition of a few hundred users the loop's
fixed cost dominates. :func:`max_landmark_tpls` runs the same pruning rounds for every
user together: one vector holds the restarted runs of all users, each run with its own
allocation, segment recursion and loss function.

Every run does the same floating-point operations on the same numbers as in
:func:`~lmdk_core.leakage.tpl.max_landmark_tpl` (numpy's element-wise functions give each
element the same double wherever it sits in a vector; the hull vertex is the number of
the run's own crossings ``<= x``, which is ``searchsorted(side="right")``,
:func:`~lmdk_core.leakage.vector_chains.vertex_index`), and the maximum over the pruned
candidates does not depend on the order in which they are examined, so every result is
bit for bit that of the one-user function (tests/engine/test_leakage_tpl_many.py). The
users' segment recursions run together too (:func:`_gaps_and_block`): as numpy vectors
(:mod:`~lmdk_core.leakage.vector_chains`), so a batch worker that needs numba for
nothing else does not load it for them, or in one compiled call
(:func:`~lmdk_core.leakage.recursion.chains_kernel`) where numba is loaded anyway; so do
the restarted runs of each pruning round (:func:`_restarted_all`: numpy vectors, or
:func:`~lmdk_core.leakage.restarted_kernel.restarted_kernel` where numba is loaded).
"""

from __future__ import annotations

import sys
from typing import NamedTuple

import numpy as np

from lmdk_core.foundation.validation import check_landmarks
from lmdk_core.leakage.gaps_kernel import gaps_kernel
from lmdk_core.leakage.loss import LossFunction, loss_pair
from lmdk_core.leakage.recursion import chains_kernel, recurse
from lmdk_core.leakage.restarted_kernel import run_restarted
from lmdk_core.leakage.restarts import MERGE_RTOL, SAFE_SEGMENT_ALPHA, Gaps
from lmdk_core.leakage.tpl import LossLike, check_allocation, gaps_from_segments, max_landmark_tpl
from lmdk_core.leakage.vector_chains import VertexTables, numpy_is_libm, run_chains, vertex_index

__all__ = ["KERNEL_MIN_PROBLEMS", "max_landmark_tpls"]

#: fewer live problems than this run their segment recursions one by one (the one-user
#: recursion) unless numba is already loaded (then the compiled chains): it costs 1–2 ms
#: per problem of 168–8,760 steps, while the vector chains cost ~10 µs per step whatever
#: the number of problems and loading numba and the kernel costs a fresh process 0.5–0.9
#: s of CPU (``lmdk report``'s calibration advice: 4 smoothing variants of one release);
#: from this many on, the vector chains. The pruning rounds run together either way.
KERNEL_MIN_PROBLEMS = 32
#: the vector chains' extra seconds per recursion step over the compiled chains (as
#: ``python_s``; the compiled chains' own cost counted as 0, so both the saving and what
#: the vector chains have cost so far are the difference) and the compiled chains' load
#: in a process that has not run a compiled kernel yet (numba's compiler set up, then
#: the kernel from numba's on-disk cache; numba's import is added when not imported):
#: one block of 228 Adaptive users × 8,760 hours (4.0 M steps) on this project's 2-core
#: machine at load 2.5 took 0.36–0.42 s as vectors against 0.24 s compiled (~35 ns per
#: step less; docs/performance.md, "Population releases")
_CHAINS_COST = {"python_s": 3.5e-8, "compiled_s": 0.0, "load_s": 0.45}
#: the compiled chains' load once numba is imported: this project imports numba only
#: to run a compiled kernel (Adaptive's block kernel in a batch), after which the next
#: kernel loads from numba's cache in ~0.01 s (measured 0.008–0.012 s)
_NEXT_KERNEL_LOAD_S = 0.02
_chooser = None  # the PathChooser of the compiled chains, made at the first block
_chains_loaded = False  # whether the compiled chains ran in this process


def _run_all(eps: np.ndarray, segment: np.ndarray, tables: VertexTables, pos0: np.ndarray,
             step: np.ndarray, anchor: np.ndarray, off: np.ndarray,
             loss: np.ndarray) -> np.ndarray:
    """The final value of every restarted run (:class:`~lmdk_core.leakage.restarts._Runs`
    with its ``small`` branch, each run with its own loss ``loss_i``): run i starts at
    ``pos0_i + step_i`` in ``eps`` (all users end to end), moves by ``step_i`` to
    ``anchor_i``, and compares with ``segment[pos + off_i]``."""
    out = np.empty(pos0.size)
    if pos0.size == 0:
        return out
    idx = np.arange(pos0.size)
    pos = pos0 + step
    v = eps[pos].copy()  # L(0) + ε = ε
    thr, v_start = tables.thr[:, loss], tables.v_start[loss]
    k = np.empty(pos0.size, dtype=np.intp)
    cmp = np.empty(thr.shape, dtype=bool)
    while True:
        ref = segment[pos + off]
        at_end = pos == anchor
        fin = np.abs(v - ref) <= MERGE_RTOL * ref
        fin |= at_end
        if fin.any():
            end = fin & at_end
            met = fin & ~at_end
            out[idx[end]] = v[end]
            out[idx[met]] = segment[anchor[met] + off[met]]
            keep = ~fin
            if not keep.any():
                return out
            idx, anchor, pos, v, step, off = (idx[keep], anchor[keep], pos[keep], v[keep],
                                              step[keep], off[keep])
            thr, v_start = thr[:, keep], v_start[keep]
            k, cmp = k[:idx.size], cmp[:, :idx.size]
        pos = pos + step
        x = np.expm1(v)
        kv = vertex_index(thr, x, v_start, cmp, k)
        v = np.log1p(tables.qmd.take(kv) * x / (1.0 + tables.d.take(kv) * x)) + eps[pos]


def _restarted_all(eps: np.ndarray, segment: np.ndarray, tables: VertexTables,
                   pos0: np.ndarray, step: np.ndarray, anchor: np.ndarray, off: np.ndarray,
                   loss: np.ndarray) -> np.ndarray:
    """:func:`_run_all`, bit for bit: in one call of the compiled runs
    (:func:`~lmdk_core.leakage.restarted_kernel.restarted_kernel`) where numba is loaded
    already and numpy's ``expm1`` / ``log1p`` are the C library's
    (:func:`~lmdk_core.leakage.vector_chains.numpy_is_libm`; the one-user path's
    restarted runs are numpy's), else as numpy vectors: a dozen numpy calls per step of
    the longest run, while the compiled loop pays per step of each run (806,088
    steps in 585 vector steps on a block of 228 Adaptive users × 8,760 hours: 0.12 s as
    vectors; compiled 0.068 s with the padded crossing table, 0.048 s with the flat one
    and three passes per step, best of 5, CPU)."""
    if pos0.size and _compiled_runs():
        out = run_restarted(tables, eps, segment, pos0, step, anchor, off, loss, MERGE_RTOL)
        if out is not None:
            return out
    return _run_all(eps, segment, tables, pos0, step, anchor, off, loss)


def _compiled_runs() -> bool:
    """Whether the restarted runs take the compiled loop: numba loaded already
    (:func:`_numba_loaded`) and numpy's ``expm1`` / ``log1p`` the C library's."""
    return _numba_loaded() and numpy_is_libm()


class _Block(NamedTuple):
    """Where the compiled chains left the problems' segment recursions: every live
    problem's budget end to end in ``eps``, its BPL segment recursion at the same place
    of ``seg[:E]`` and its FPL one (in the budget's order) of ``seg[E:]`` (``E =
    eps.size``); problem j's timestamps start at ``start[j]`` (−1: not in the block)."""

    eps: np.ndarray
    seg: np.ndarray
    start: np.ndarray


def _gaps_and_block(problems: list[tuple[np.ndarray, np.ndarray, LossLike, LossLike]]
                    ) -> tuple[list[Gaps | None], _Block | None]:
    """:func:`~lmdk_core.leakage.tpl.landmark_gaps` of every problem, bit for bit, its
    two segment recursions (Cao et al., ICDE 2017: BPL restarted after every landmark,
    FPL before) run for all problems together: as numpy vectors
    (:func:`~lmdk_core.leakage.vector_chains.run_chains`, no numba) from
    :data:`KERNEL_MIN_PROBLEMS` problems on, where numpy's ``expm1`` and ``log1p`` are
    the C library's (:func:`~lmdk_core.leakage.vector_chains.numpy_is_libm`); otherwise
    in one compiled call (:func:`~lmdk_core.leakage.recursion.chains_kernel`, eight
    chains interleaved) — for fewer problems only when numba is already loaded. Both
    do the steps of the one-recursion loop. Fewer problems in a process without numba
    run the one-user recursion each (:func:`~lmdk_core.leakage.recursion.recurse`, as
    :func:`~lmdk_core.leakage.tpl.landmark_gaps` does): their pruning rounds still run
    together. None where a loss function is zero or a recursion reaches the loss
    function's log branch (α > 700): such a problem takes the one-user path. The
    :class:`_Block` of the compiled chains comes with them (None on the other paths),
    so the pruning rounds read the recursions where they are instead of copying them."""
    checked: list[tuple[np.ndarray, np.ndarray, LossFunction, LossFunction, np.ndarray]] = []
    for eps, lm, b, f in problems:
        e = check_allocation(eps)
        lm_u = check_landmarks(lm, e.size)
        lb, lf = loss_pair(b, f)
        mark = np.zeros(e.size, dtype=bool)
        mark[lm_u] = True
        checked.append((e, lm_u, lb, lf, mark))
    live = [i for i, c in enumerate(checked) if not (c[2].is_zero or c[3].is_zero)]
    out: list[Gaps | None] = [None] * len(problems)
    many = len(live) >= KERNEL_MIN_PROBLEMS
    if not live:
        return out, None
    if not many and not _numba_loaded():  # a few problems: without loading numba
        for i in live:
            e, lm_u, lb, lf, mark = checked[i]
            out[i] = gaps_from_segments(e, lm_u, lb, lf, mark,
                                        *_one_user_segments(e, lb, lf, mark))
        return out, None
    tables = VertexTables()
    # chain 2u: BPL of user u forwards; chain 2u + 1: its FPL backwards
    loss_id = np.array([tables.add(L) for i in live for L in checked[i][2:4]],
                       dtype=np.intp)
    tables.freeze()
    steps = 2 * sum(checked[i][0].size for i in live)
    if many and numpy_is_libm() and tables.countable and not _compile_chains(steps):
        segments = _vector_segments([checked[i] for i in live], loss_id, tables)
        for i, seg in zip(live, segments, strict=True):
            if seg is not None:  # None: the log branch, the one-user path
                out[i] = gaps_from_segments(*checked[i][:4], checked[i][4], *seg)
        return out, None
    found, flat = _compiled_gaps([checked[i] for i in live], loss_id, tables)
    for i, g in zip(live, found, strict=True):
        out[i] = g  # None: the log branch, the one-user path
    if flat is None:  # pragma: no cover - numba is a dependency
        return out, None
    start = np.full(len(problems), -1, dtype=np.intp)
    start[live] = flat.e_off
    return out, _Block(flat.eps, flat.seg, start)


def _numba_loaded() -> bool:
    """Whether numba is already imported in this process (then the compiled chains cost
    only their kernel's load)."""
    return "numba" in sys.modules


def _one_user_segments(e: np.ndarray, lb: LossFunction, lf: LossFunction, mark: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray]:
    """``(sb, sf)`` of one problem as :func:`~lmdk_core.leakage.tpl.landmark_gaps`
    computes them (:func:`~lmdk_core.leakage.recursion.recurse`)."""
    return recurse(e, lb, mark), recurse(e[::-1], lf, mark[::-1])[::-1]


def _compile_chains(steps: int) -> bool:
    """Whether ``steps`` recursion steps take the compiled chains rather than the vector
    chains in this process (:class:`~lmdk_core.foundation.compiled_paths.PathChooser`,
    the rule of Adaptive's kernels on the difference of the two paths: once loaded,
    always; before, when the steps' saving plus what the vector chains have cost this
    process more than the compiled chains would have exceeds numba's load). A
    batch worker of a few blocks that needs numba for nothing else never loads it; one of
    many blocks loads it once the vector chains' extra cost has reached the load (never
    more than twice the best choice made with hindsight); one that has loaded numba
    anyway (Adaptive's compiled block kernel) takes the compiled chains from its first
    block, their load then ~0.01 s."""
    global _chooser
    from lmdk_core.foundation.compiled_paths import KernelCost, PathChooser

    if _chooser is None:
        _chooser = PathChooser(KernelCost(**_CHAINS_COST))
    load = _NEXT_KERNEL_LOAD_S if _numba_loaded() else _CHAINS_COST["load_s"]
    if _chooser.cost.load_s != load:
        _chooser.cost = KernelCost(**{**_CHAINS_COST, "load_s": load})
    return _chooser.use_compiled(steps, _chains_loaded)


def _vector_segments(users: list[tuple], loss_id: np.ndarray, tables: VertexTables
                     ) -> list[tuple[np.ndarray, np.ndarray] | None]:
    """``(sb, sf)`` of every ``(eps, landmarks, lb, lf, mark)`` of ``users`` by
    :func:`~lmdk_core.leakage.vector_chains.run_chains` (chain 2u: user u's BPL
    forwards, chain 2u + 1: its FPL on the reversed budget); None where a chain stopped
    at the log branch."""
    eps = [a for e, *_, mark in users for a in (e, e[::-1])]
    marks = [a for e, *_, mark in users for a in (mark, mark[::-1])]
    res = run_chains(eps, marks, loss_id, tables)
    out: list[tuple[np.ndarray, np.ndarray] | None] = []
    for u, (e, *_) in enumerate(users):
        n = e.size
        if res.done[2 * u] < n or res.done[2 * u + 1] < n:
            out.append(None)
            continue
        out.append((res.chain(2 * u, n).copy(), res.chain(2 * u + 1, n)[::-1].copy()))
    return out


class _Flat(NamedTuple):
    """The compiled chains' output (:func:`_compiled_flat`): every user's budget and
    landmark mask end to end (``eps``, ``mark``; user u from ``e_off[u]``, ``sizes[u]``
    long), its BPL segment recursion at the same place of ``seg[:E]`` and its FPL one
    (in the budget's order) of ``seg[E:]``; ``ok[u]`` False where a chain stopped at the
    log branch."""

    eps: np.ndarray
    mark: np.ndarray
    seg: np.ndarray
    e_off: np.ndarray
    sizes: np.ndarray
    ok: np.ndarray


def _compiled_flat(users: list[tuple], loss_id: np.ndarray, tables: VertexTables
                   ) -> _Flat | None:
    """The segment recursions of every ``(eps, landmarks, lb, lf, mark)`` of ``users`` in
    one call of the compiled chains (:func:`~lmdk_core.leakage.recursion.chains_kernel`;
    chain 2u: user u's BPL forwards, chain 2u + 1: its FPL on the reversed budget);
    None without numba."""
    global _chains_loaded
    kernel = chains_kernel()
    if kernel is None:  # pragma: no cover - numba is a dependency
        return None
    _chains_loaded = True
    sizes = np.array([u[0].size for u in users], dtype=np.intp)
    e_off = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.intp)
    start = np.repeat(e_off, 2)
    length = np.repeat(sizes, 2)
    reverse = np.tile(np.array([False, True]), len(users))
    out_start = start + np.tile(np.array([0, 1]), len(users)) * int(sizes.sum())
    eps_all = np.concatenate([u[0] for u in users])
    mark_all = np.concatenate([u[4] for u in users])
    seg = np.empty(2 * eps_all.size)
    done = np.empty(length.size, dtype=np.intp)
    kernel(eps_all, mark_all, start, length, reverse, out_start, tables.thr_all,
           tables.thr_start[loss_id], tables.thr_len[loss_id], tables.q,
           tables.d, tables.v_start[loss_id], seg, done)
    ok = (done[0::2] >= sizes) & (done[1::2] >= sizes)
    return _Flat(eps_all, mark_all, seg, e_off, sizes, ok)


def _compiled_gaps(users: list[tuple], loss_id: np.ndarray, tables: VertexTables
                   ) -> tuple[list[Gaps | None], _Flat | None]:
    """:func:`~lmdk_core.leakage.tpl.gaps_from_segments` of the segment recursions of
    :func:`_compiled_flat` (as :func:`_vector_segments` gives them) for every ``(eps,
    landmarks, lb, lf, mark)`` of ``users``, the same
    :class:`~lmdk_core.leakage.restarts.Gaps` bit for bit: each user's ``base`` by the
    same numpy sum, then the regular timestamps, the landmarks around them and their
    bounds of all users in one compiled call
    (:func:`~lmdk_core.leakage.gaps_kernel.gaps_kernel`, numba being loaded for the
    chains; ~10 numpy calls over each user's T timestamps otherwise), with the
    :class:`_Flat` they come from. None where a chain stopped at the log branch."""
    flat = _compiled_flat(users, loss_id, tables)
    kernel = gaps_kernel()
    out: list[Gaps | None] = [None] * len(users)
    if flat is None or kernel is None:  # pragma: no cover - numba is a dependency
        return out, None
    E = flat.eps.size
    sb_all, sf_all = flat.seg[:E], flat.seg[E:]
    ok = np.flatnonzero(flat.ok)
    if not ok.size:
        return out, flat
    e_off, sizes = flat.e_off[ok], flat.sizes[ok]
    lms = [users[u][1] for u in ok.tolist()]
    n_lm = np.array([lm.size for lm in lms], dtype=np.intp)
    lm_off = np.r_[0, np.cumsum(n_lm)[:-1]].astype(np.intp)
    lm_all = np.concatenate(lms).astype(np.intp) if n_lm.sum() else np.zeros(1, np.intp)
    # base = Σ_{l∈L} sb_l + sf_l − ε_l, by gaps_from_segments' own numpy sum
    bases = np.array([float(np.sum(sb_all[lo + lm] + sf_all[lo + lm] - flat.eps[lo + lm]))
                      if lm.size else 0.0 for lo, lm in zip(e_off.tolist(), lms, strict=True)])
    n_reg = sizes - n_lm
    reg_off = np.r_[0, np.cumsum(n_reg)[:-1]].astype(np.intp)
    total = int(n_reg.sum())
    regular = np.empty(total, dtype=np.intp)
    prev = np.empty(total, dtype=np.intp)
    nxt = np.empty(total, dtype=np.intp)
    upper = np.empty(total)
    kernel(flat.eps, flat.mark, sb_all, sf_all, e_off, sizes, lm_all, lm_off, n_lm, bases,
           reg_off, regular, prev, nxt, upper)
    for j, u in enumerate(ok.tolist()):
        eps, lm, lb, lf, _ = users[u]
        lo, n = int(e_off[j]), int(sizes[j])
        r0, r1 = int(reg_off[j]), int(reg_off[j] + n_reg[j])
        out[u] = Gaps(eps, lm, lb, lf, sb_all[lo:lo + n], sf_all[lo:lo + n], float(bases[j]),
                      regular[r0:r1], prev[r0:r1], nxt[r0:r1], upper[r0:r1])
    return out, flat


def _batchable(g: Gaps) -> bool:
    """Whether the user's runs take the loop's fast branch (:class:`_Runs` ``small``):
    both loss functions non-zero and every segment value below the log branch."""
    if g.lb.is_zero or g.lf.is_zero:
        return False
    return max(float(g.sb.max()), float(g.sf.max())) <= SAFE_SEGMENT_ALPHA


def max_landmark_tpls(problems: list[tuple[np.ndarray, np.ndarray, LossLike, LossLike]]
                      ) -> np.ndarray:
    """``max_landmark_tpl(eps, landmarks, backward, forward)`` for every
    ``(eps, landmarks, backward, forward)`` of ``problems``, bit for bit, the pruning rounds
    of all of them run together (Cao et al., ICDE 2017; Katsomallos et al., CODASPY 2022).

    Parameters
    ----------
    problems : list of (array_like, array_like, LossFunction, LossFunction)
        One allocation ``ε_t``, its landmarks and its (backward, forward) loss functions
        (or matrices) per user.

    Returns
    -------
    numpy.ndarray
        The largest landmark TPL of each problem.

    Examples
    --------
    >>> from lmdk_core.leakage import LossFunction, smoothed_matrix
    >>> L = LossFunction(smoothed_matrix(2, 0.1))
    >>> max_landmark_tpls([([0.25] * 4, [1], L, L), ([0.5] * 3, [], L, L)]).round(4).tolist()
    [1.124, 1.328]
    """
    out = np.full(len(problems), np.nan)
    users: list[int] = []
    gaps: list[Gaps] = []
    found, block = _gaps_and_block(problems)
    for j, ((eps, lm, lb, lf), g) in enumerate(zip(problems, found, strict=True)):
        if g is None or g.regular.size == 0 or not _batchable(g):
            out[j] = max_landmark_tpl(eps, lm, lb, lf)
        else:
            users.append(j)
            gaps.append(g)
    if not users:
        return out
    tables = VertexTables()
    lf_id = np.array([tables.add(g.lf) for g in gaps], dtype=np.intp)
    lb_id = np.array([tables.add(g.lb) for g in gaps], dtype=np.intp)
    tables.freeze()
    if block is not None:  # every Gaps then comes from the compiled chains' block
        # its arrays as they are: user j's timestamps from e_off[j] in eps_all, its sb at
        # the same index of segment, its sf E further
        eps_all, segment, e_off = block.eps, block.seg, block.start[users]
        off_f = np.full(len(gaps), block.eps.size, dtype=np.intp)
        off_b = np.zeros(len(gaps), dtype=np.intp)
    else:
        sizes = np.array([g.eps.size for g in gaps], dtype=np.intp)
        e_off = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.intp)
        eps_all = np.concatenate([g.eps for g in gaps])
        # segment: every user's sf then sb; a run down reads sf, a run up sb
        segment = np.concatenate([a for g in gaps for a in (g.sf, g.sb)])
        off_f = e_off  # user j's sf from 2·e_off[j]: index (e_off[j] + t) + e_off[j]
        off_b = e_off + sizes  # its sb right after its sf
    best = np.array([g.base if g.lm.size else -np.inf for g in gaps])
    # the first round examines each user's 16 largest bounds (×4 each round after): on
    # 100 Adaptive users × 8,760 hours at most 4 bounds exceeded the final maximum, and
    # one round of 16 runs 4× fewer restarted steps than one of 64 (the result is the
    # same float whatever the rounds: every bound left is at most the best value)
    chunk = 16
    orders = [_descending_prefix(g.upper, chunk) for g in gaps]
    done = np.zeros(len(gaps), dtype=np.intp)
    active = list(range(len(gaps)))
    while True:
        for i in active:  # the next chunk of each order, where still short
            if orders[i].size < min(done[i] + chunk, gaps[i].upper.size):
                orders[i] = _descending_prefix(gaps[i].upper, int(done[i]) + chunk)
        # a user whose next bound cannot beat its best is done (best only grows)
        active = [i for i in active if done[i] < gaps[i].upper.size
                  and gaps[i].upper[orders[i][done[i]]] > best[i]]
        if not active:
            break
        sels = [orders[i][done[i]:done[i] + chunk] for i in active]
        parts = [_runs_of(gaps[i], s, i, e_off, off_f, off_b, lf_id, lb_id)
                 for i, s in zip(active, sels, strict=True)]
        cat = [np.concatenate(c) for c in zip(*[p[:5] for p in parts], strict=True)]
        res = _restarted_all(eps_all, segment, tables, *cat)
        at = 0
        for i, sel, p in zip(active, sels, parts, strict=True):
            g = gaps[i]
            nd, nu = p[5], p[6]
            fnew, bnew = res[at:at + nd], res[at + nd:at + nd + nu]
            at += nd + nu
            prev, nxt = g.prev[sel], g.nxt[sel]
            down, up = prev >= 0, nxt < g.eps.size
            val = g.upper[sel].copy()
            val[down] += fnew - g.sf[prev[down]]
            val[up] += bnew - g.sb[nxt[up]]
            best[i] = max(best[i], float(np.max(val)))
            done[i] += chunk
        chunk *= 4
    out[users] = best
    return out


def _descending_prefix(upper: np.ndarray, k: int) -> np.ndarray:
    """The first ``m >= min(k, upper.size)`` entries of ``np.argsort(-upper,
    kind="stable")``, the same indices in the same order: every index whose bound is at
    least the k-th largest (ties at the cut included), sorted. O(T) plus the sort of
    that prefix, instead of sorting all T bounds when the pruning stops early."""
    if k >= upper.size:
        return np.argsort(-upper, kind="stable")
    cut = np.partition(upper, upper.size - k)[upper.size - k]  # the k-th largest
    cand = np.flatnonzero(upper >= cut)
    return cand[np.argsort(-upper[cand], kind="stable")]


def _runs_of(g: Gaps, sel: np.ndarray, i: int, e_off, off_f, off_b, lf_id, lb_id):
    """User i's restarted runs for the regular timestamps ``regular[sel]`` in the global
    indexing of :func:`_run_all`: ``(t, step, anchor, off, loss)`` for its runs down (FPL,
    loss ``lf``) then up (BPL, loss ``lb``), plus their numbers."""
    regular, prev, nxt = g.regular[sel], g.prev[sel], g.nxt[sel]
    down, up = prev >= 0, nxt < g.eps.size
    nd, nu = int(np.count_nonzero(down)), int(np.count_nonzero(up))
    e = e_off[i]
    t = np.concatenate((regular[down], regular[up])) + e
    anchor = np.concatenate((prev[down], nxt[up])) + e
    is_up = np.arange(nd + nu) >= nd  # (np.concatenate, not np.r_: ~10 µs less a call)
    step = np.where(is_up, 1, -1)
    off = np.where(is_up, off_b[i], off_f[i])
    loss = np.where(is_up, lb_id[i], lf_id[i])
    return t, step, anchor, off, loss, nd, nu
