/*
 * msm_sorted.cl: Pippenger MSM with the points grouped by bucket (the sorted-bucket design of
 * sppark and ICICLE), in OpenCL 1.2 without vendor libraries. Included by msm.cl (one curve
 * per program, curve_select.h). The host side is runtime/opencl/cl_msm_sorted.c.
 *
 * What: for a chunk of m points and the nwin windows of c bits that tile the bit slice
 * [b0, b1) of the scalars (the last one narrower; msm_slice_digit), each
 * window's sum  sum_b (b + 1) * (sum of the points whose digit is +-(b + 1)),  as XYZZ.
 * Steps (one launch each, all in one in-order queue):
 *   1. msm_sort_keys: per point and window, the signed (Booth) digit d becomes an entry
 *      (key = w * B + |d| - 1, value = point index | sign << 31); d = 0 gets key SORT_NONE
 *      and is dropped by the first pass. B = 2^(c-1) buckets per window.
 *   2. A stable LSD radix sort of each window's entries by bucket, 8 bits per pass, so two
 *      passes at c <= 17 (the keys are already window-major: the window is never sorted).
 *      Each pass: msm_sort_hist (the digit histogram of each tile of a window), msm_scan_blocks
 *      / msm_scan_small / msm_scan_apply (exclusive prefix sums over (window, digit, tile)
 *      in that order, by blocks of SCAN_BLOCK values), msm_sort_scatter (each entry to its
 *      place). The first pass drops the zero digits; msm_window_starts then records where
 *      each window's nonzero entries begin, and the second pass reads each window there.
 *      The rank of an entry inside a round of SORT_GROUP is counted in its lane group of
 *      RANK_LANES plus the earlier groups' counts (round_rank: about 40 steps, not 256), not
 *      taken from atomics, so equal keys keep their point order: the grouping is stable.
 *   3. msm_bucket_starts: each bucket's first entry (binary search; starts[nwin * B] is the
 *      count of nonzero digits).
 *   4. Bucket sums with fixed split points: msm_bucket_runs gives work-item t the entries
 *      [t * span, (t + 1) * span) whatever their buckets, so a crowded bucket (equal scalars,
 *      Groth16's 0/1 witness values) is spread over many work-items. A run of equal keys that
 *      starts in an item is summed there and written to its bucket (the head); a run that
 *      began in an earlier item is left as a carry. msm_carry_runs sums the carries the same
 *      way, level after level (span-fold fewer each time), adding each run to its bucket's
 *      head in order, until one item holds all of them.
 *   5. msm_bucket_segments: each window's buckets in G segments of L = B / G, each reduced by
 *      running sums into R_j (its plain sum) and S_j (sum of (b - jL + 1) * bucket b).
 *   6. msm_segment_tree, level after level, then msm_window_sums: per window,
 *      sum_j S_j + L * sum_j j R_j, by a tree of fan-in TREE_FAN over the segments (each
 *      node keeps R, S and T = the sum of j R_j counted from its first segment), then
 *      log2 L doublings of the root's T.
 * No serial tails: the host bounds every item's chain of dependent point additions (the
 * span, the segment length L, the tree's fan-in) at about 64, whatever the size, so the
 * last launches never leave a handful of items adding thousands of points in sequence.
 * Determinism: the grouping is stable and every sum runs in a fixed order for a given plan;
 * the window sums are the same group elements for every plan and device, and the host's
 * affine result is canonical, so the output bits never depend on device, span or split.
 * Counted work per point and window (m points, nwin windows; see docs/opencl.md):
 * one mixed addition; sorting reads and writes 8 bytes per nonzero entry and pass (2 passes at
 * c = 16).
 */

#define SORT_RADIX 256u
#define SORT_GROUP 256u
#define SORT_ROUNDS 4u
#define SORT_TILE (SORT_GROUP * SORT_ROUNDS)
#define SCAN_PER 16u
#define SCAN_BLOCK (SORT_GROUP * SCAN_PER)
#define SORT_NONE 0xffffffffu
#define RANK_LANES 32u
#define RANK_GROUPS (SORT_GROUP / RANK_LANES)
#define ENTRY_SIGN 0x80000000u
#define TREE_FAN 8u

/* Work-item e = w * m + i: the entry of point i in window w of the bit slice [b0, b1) (keys[e],
 * vals[e]); a zero digit gets key SORT_NONE and is dropped by the sort's first pass. */
__kernel void msm_sort_keys(__global const ulong *scalars, uint m, uint c, uint b0, uint b1, uint nwin,
                            __global uint *keys, __global uint *vals)
{
    uint e = get_global_id(0), i;
    if (e >= nwin * m)
        return;
    uint w = arith_divrem(e, m, &i);
    ulong k[4] = {scalars[4 * (ulong)i], scalars[4 * (ulong)i + 1], scalars[4 * (ulong)i + 2], scalars[4 * (ulong)i + 3]};
    uint nbuckets = 1u << (c - 1);
    int d = msm_slice_digit(k, b0, b1, w, c);
    keys[e] = d == 0 ? SORT_NONE : w * nbuckets + msm_digit_bucket(d);
    vals[e] = i | (d < 0 ? ENTRY_SIGN : 0u);
}

/* Where window w's entries are in this pass: [w m, (w + 1) m) in the first (from_starts 0),
 * then [wstart[w], wstart[w + 1]) (the nonzero entries, as the first pass placed them). */
ARITH_FN void window_range(__global const uint *wstart, uint from_starts, uint w, uint m, uint *base, uint *count)
{
    *base = from_starts ? wstart[w] : w * m;
    *count = from_starts ? wstart[w + 1] - wstart[w] : m;
}

/* The digit of a window's entry x (of count) in this pass, or SORT_RADIX for none: past the
 * end, or a zero digit (SORT_NONE). The digit is taken from the bucket within the window
 * (key mod nbuckets, a power of two), shift bits up. */
ARITH_FN uint sort_digit(__global const uint *keys, uint base, uint x, uint count, uint nbuckets, uint shift)
{
    uint key = x < count ? keys[base + x] : SORT_NONE;
    return key == SORT_NONE ? SORT_RADIX : ((key & (nbuckets - 1)) >> shift) & (SORT_RADIX - 1);
}

/* For item lid's digit d among one round's digits (d = SORT_RADIX: no entry): the number of
 * earlier items with d, and *last = 1 when no later item has it (the item that advances d's
 * count). The round's SORT_GROUP items form RANK_GROUPS lane groups of RANK_LANES (a warp):
 * an item counts its digit among the earlier items of its own lane group only (RANK_LANES
 * compares, not SORT_GROUP), the last of each digit in a group writes the group's count
 * (rank_in_lanes), and the rank adds the counts of the earlier groups (rank_across_lanes:
 * RANK_GROUPS reads; on NVIDIA with the inline-PTX words, one match.any.sync and a population
 * count instead of the compares). Counted, not taken from atomics: the ranks follow the entry
 * order (a stable sort), and no local atomics are needed (Oclgrind 21.10 also misreads their
 * addresses as uninitialised). */
ARITH_FN uint rank_in_lanes(__local const uint *digits, __local uint (*lane_counts)[SORT_RADIX], uint lid, uint d,
                            uint *lane_last)
{
    uint before = 0, later = 0;
#if ARITH_PTX_ASM
    /* NVIDIA (HPR_CL_PTX, sm_70 and later): one match.any.sync gives the lanes of the warp
     * holding d, so the rank is a population count, not RANK_LANES compares. A lane group is a
     * warp here: the sort kernels run work-groups of SORT_GROUP items, and a one-dimensional
     * group's warps are its items 32 at a time, all of them at this call (uniform flow). */
    uint peers, lane = lid & (RANK_LANES - 1);
    (void)digits;
    __asm__ volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(peers) : "r"(d));
    before = popcount(peers & ((1u << lane) - 1u));
    later = (peers >> lane) >> 1;
#else
    uint lo = lid & ~(RANK_LANES - 1);
    for (uint j = lo; j < lo + RANK_LANES; j++) {
        uint same = digits[j] == d;
        before += same & (j < lid);
        later |= same & (j > lid);
    }
#endif
    *lane_last = d < SORT_RADIX && !later;
    if (*lane_last)
        lane_counts[lid / RANK_LANES][d] = before + 1;
    return before;
}

ARITH_FN uint rank_across_lanes(__local const uint (*lane_counts)[SORT_RADIX], uint lid, uint d, uint before,
                                uint lane_last, uint *last)
{
    uint mine = lid / RANK_LANES, later = 0;
    *last = 0;
    if (d >= SORT_RADIX)
        return 0;
    for (uint g = 0; g < RANK_GROUPS; g++) {
        uint n = lane_counts[g][d];
        before += g < mine ? n : 0;
        later |= g > mine && n;
    }
    *last = lane_last && !later;
    return before;
}

/* The rank of item lid's digit d in the round (every item of the group calls it; the caller
 * ends the round with a barrier before the next call). */
ARITH_FN uint round_rank(__local uint *digits, __local uint (*lane_counts)[SORT_RADIX], uint lid, uint d,
                         uint *last)
{
    uint lane_last;
    for (uint g = 0; g < RANK_GROUPS; g++)
        lane_counts[g][lid] = 0;
    digits[lid] = d;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint before = rank_in_lanes(digits, lane_counts, lid, d, &lane_last);
    barrier(CLK_LOCAL_MEM_FENCE);
    return rank_across_lanes(lane_counts, lid, d, before, lane_last, last);
}

/* Work-group (w, tile) = group id w * tiles + tile: one tile of SORT_TILE entries of window
 * w (SORT_GROUP items, SORT_ROUNDS rounds). */
ARITH_FN uint sort_group_window(uint tiles, uint *tile)
{
    return arith_divrem((uint)get_group_id(0), tiles, tile);
}

/* counts[(w * SORT_RADIX + digit) * tiles + tile]: how many of the tile's entries have that
 * digit; group 0 also clears counts[len - 1], the extra count whose exclusive sum is the
 * total. */
__kernel void msm_sort_hist(__global const uint *keys, __global const uint *wstart, uint from_starts, uint m,
                            uint nbuckets, uint shift, uint tiles, __global uint *counts, uint len)
{
    __local uint digits[SORT_GROUP], hist[SORT_RADIX], lane_counts[RANK_GROUPS][SORT_RADIX];
    uint lid = get_local_id(0), tile, last, base, count;
    uint w = sort_group_window(tiles, &tile);
    window_range(wstart, from_starts, w, m, &base, &count);
    hist[lid] = 0;
    for (uint r = 0; r < SORT_ROUNDS && tile * SORT_TILE + r * SORT_GROUP < count; r++) { /* uniform in the group */
        uint d = sort_digit(keys, base, tile * SORT_TILE + r * SORT_GROUP + lid, count, nbuckets, shift);
        uint before = round_rank(digits, lane_counts, lid, d, &last);
        if (last)
            hist[d] += before + 1;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    counts[((ulong)w * SORT_RADIX + lid) * tiles + tile] = hist[lid];
    if (get_group_id(0) == 0 && lid == 0)
        counts[len - 1] = 0;
}

/* Exclusive scan of the SORT_GROUP values part[] in local memory, in place; returns the
 * total. Every item of the work-group calls it. */
ARITH_FN uint local_exclusive_scan(__local uint *part, uint lid)
{
    barrier(CLK_LOCAL_MEM_FENCE); /* every item's value is in place */
    uint mine = part[lid];
    for (uint step = 1; step < SORT_GROUP; step <<= 1) { /* inclusive scan (Hillis-Steele) */
        uint add = lid >= step ? part[lid - step] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        part[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint total = part[SORT_GROUP - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    part[lid] -= mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

/* The sum of the SCAN_PER consecutive values of item lid in block g (0 past len). */
ARITH_FN uint slice_sum(__global const uint *counts, uint len, uint g, uint lid)
{
    uint lo = g * SCAN_BLOCK + lid * SCAN_PER, sum = 0;
    for (uint x = lo; x < lo + SCAN_PER && x < len; x++)
        sum += counts[x];
    return sum;
}

/* The exclusive prefix sum of counts[0, len) in three launches: block_sums[g] = the sum of
 * block g (SCAN_BLOCK values per work-group), msm_scan_small over the block sums, then
 * msm_scan_apply rewrites each block with its offset. */
__kernel void msm_scan_blocks(__global const uint *counts, uint len, __global uint *block_sums)
{
    __local uint part[SORT_GROUP];
    uint lid = get_local_id(0), g = get_group_id(0);
    part[lid] = slice_sum(counts, len, g, lid);
    uint total = local_exclusive_scan(part, lid);
    if (lid == 0)
        block_sums[g] = total;
}

/* In place: values[x] = sum of values[y] for y < x, over len values. One work-group, each
 * item owning a contiguous slice (len is small: the block sums). */
__kernel void msm_scan_small(__global uint *values, uint len)
{
    __local uint part[SORT_GROUP];
    uint lid = get_local_id(0);
    uint per = (len + SORT_GROUP - 1) / SORT_GROUP;
    uint lo = lid * per, hi = lo + per < len ? lo + per : len;
    uint sum = 0;
    for (uint x = lo; x < hi; x++)
        sum += values[x];
    part[lid] = sum;
    local_exclusive_scan(part, lid);
    uint run = part[lid];
    for (uint x = lo; x < hi; x++) {
        uint v = values[x];
        values[x] = run;
        run += v;
    }
}

__kernel void msm_scan_apply(__global uint *counts, uint len, __global const uint *block_offsets)
{
    __local uint part[SORT_GROUP];
    uint lid = get_local_id(0), g = get_group_id(0);
    part[lid] = slice_sum(counts, len, g, lid);
    local_exclusive_scan(part, lid);
    uint run = block_offsets[g] + part[lid], lo = g * SCAN_BLOCK + lid * SCAN_PER;
    for (uint x = lo; x < lo + SCAN_PER && x < len; x++) {
        uint v = counts[x];
        counts[x] = run;
        run += v;
    }
}

/* After the first pass's scan: wstart[w] = where window w's nonzero entries begin, for
 * w in [0, nwin] (wstart[nwin]: their count, the extra last offset). */
__kernel void msm_window_starts(__global const uint *offsets, uint tiles, uint nwin, uint len, __global uint *wstart)
{
    uint w = get_global_id(0);
    if (w > nwin)
        return;
    wstart[w] = w == nwin ? offsets[len - 1] : offsets[(ulong)w * SORT_RADIX * tiles];
}

/* Each entry of the tile to offsets[(w * SORT_RADIX + digit) * tiles + tile] + its rank among
 * the tile's earlier entries with that digit (so the order is the point order: stable). */
__kernel void msm_sort_scatter(__global const uint *keys, __global const uint *vals, __global const uint *wstart,
                               uint from_starts, uint m, uint nbuckets, uint shift, __global const uint *offsets,
                               uint tiles, __global uint *keys_out, __global uint *vals_out)
{
    __local uint digits[SORT_GROUP], next[SORT_RADIX], lane_counts[RANK_GROUPS][SORT_RADIX];
    uint lid = get_local_id(0), tile, base, count;
    uint w = sort_group_window(tiles, &tile);
    window_range(wstart, from_starts, w, m, &base, &count);
    next[lid] = offsets[((ulong)w * SORT_RADIX + lid) * tiles + tile];
    for (uint r = 0; r < SORT_ROUNDS && tile * SORT_TILE + r * SORT_GROUP < count; r++) { /* uniform in the group */
        uint x = tile * SORT_TILE + r * SORT_GROUP + lid;
        uint d = sort_digit(keys, base, x, count, nbuckets, shift);
        uint last, before = round_rank(digits, lane_counts, lid, d, &last);
        if (d < SORT_RADIX) {
            uint pos = next[d] + before;
            keys_out[pos] = keys[base + x];
            vals_out[pos] = vals[base + x];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (last)
            next[d] += before + 1;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* starts[k] = the first sorted entry with key >= k, for k in [0, nkeys], over the
 * wstart[nwin] nonzero entries. */
__kernel void msm_bucket_starts(__global const uint *keys, __global const uint *wstart, uint nwin, uint nkeys,
                                __global uint *starts)
{
    uint k = get_global_id(0);
    if (k > nkeys)
        return;
    uint lo = 0, hi = wstart[nwin];
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2;
        if (keys[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    starts[k] = lo;
}

/* A finished run of key k summed in acc: the bucket's head when the run started in this
 * item, else this item's carry. */
ARITH_FN void emit_run(uint k, const pt_xyzz *acc, int continued, int add_to_head, __global pt_xyzz *buckets,
                       __global pt_xyzz *carry, __global uint *carry_keys, uint item)
{
    if (continued) {
        carry[item] = *acc;
        carry_keys[item] = k;
    } else if (add_to_head) {
        pt_xyzz head = buckets[k];
        PT(xyzz_add)(&head, &head, acc);
        buckets[k] = head;
    } else {
        buckets[k] = *acc;
    }
}

/* Level 0: item t sums the sorted entries [t * span, (t + 1) * span) below starts[nkeys]. */
__kernel void msm_bucket_runs(__global const pt_affine *points, uint first, __global const uint *keys,
                              __global const uint *vals, __global const uint *starts, uint nkeys, uint span,
                              uint items, __global pt_xyzz *buckets, __global pt_xyzz *carry,
                              __global uint *carry_keys)
{
    uint t = get_global_id(0);
    if (t >= items)
        return;
    uint end = starts[nkeys];
    ulong lo = (ulong)t * span, hi = lo + span < end ? lo + span : end;
    carry_keys[t] = SORT_NONE;
    if (lo >= end)
        return;
    uint cur = keys[lo];
    int continued = lo > 0 && keys[lo - 1] == cur;
    pt_xyzz acc;
    PT(xyzz_set_inf)(&acc);
    for (ulong e = lo; e < hi; e++) {
        uint k = keys[e], v = vals[e];
        if (k != cur) {
            emit_run(cur, &acc, continued, 0, buckets, carry, carry_keys, t);
            continued = 0;
            cur = k;
            PT(xyzz_set_inf)(&acc);
        }
        pt_affine p = points[first + (v & ~ENTRY_SIGN)];
        if (v & ENTRY_SIGN)
            PT(affine_neg)(&p, &p);
        PT(xyzz_add_affine)(&acc, &acc, &p);
    }
    emit_run(cur, &acc, continued, 0, buckets, carry, carry_keys, t);
}

/* Level l > 0: the carries of the level below, n of them (key SORT_NONE: none), summed the
 * same way; a run that starts here is added to its bucket's head. */
__kernel void msm_carry_runs(__global const pt_xyzz *carry_in, __global const uint *keys_in, uint n, uint span,
                             __global pt_xyzz *buckets, __global pt_xyzz *carry, __global uint *carry_keys)
{
    uint u = get_global_id(0);
    if (u >= (n + span - 1) / span)
        return;
    ulong lo = (ulong)u * span, hi = lo + span < n ? lo + span : n;
    carry_keys[u] = SORT_NONE;
    if (lo >= n)
        return;
    uint cur = SORT_NONE;
    int continued = 0;
    pt_xyzz acc, x;
    PT(xyzz_set_inf)(&acc);
    for (ulong e = lo; e < hi; e++) {
        uint k = keys_in[e];
        if (k != cur) {
            if (cur != SORT_NONE)
                emit_run(cur, &acc, continued, 1, buckets, carry, carry_keys, u);
            continued = e == lo && lo > 0 && k != SORT_NONE && keys_in[lo - 1] == k;
            cur = k;
            PT(xyzz_set_inf)(&acc);
        }
        if (k == SORT_NONE)
            continue;
        x = carry_in[e];
        PT(xyzz_add)(&acc, &acc, &x);
    }
    if (cur != SORT_NONE)
        emit_run(cur, &acc, continued, 1, buckets, carry, carry_keys, u);
}

/* Item (w, j): segment j of window w, buckets [j L, (j + 1) L): R_j = their sum and
 * S_j = sum (b - j L + 1) * bucket b, by running sums from the top; empty buckets are read
 * as infinity (starts[k] == starts[k + 1]). */
__kernel void msm_bucket_segments(__global const pt_xyzz *buckets, __global const uint *starts, uint nbuckets,
                                  uint nseg, uint nwin, __global pt_xyzz *seg_r, __global pt_xyzz *seg_s)
{
    uint g = get_global_id(0), j;
    if (g >= nwin * nseg)
        return;
    uint w = arith_divrem(g, nseg, &j), len = nbuckets / nseg;
    ulong base = (ulong)w * nbuckets + (ulong)j * len;
    pt_xyzz running, sum, b;
    PT(xyzz_set_inf)(&running);
    PT(xyzz_set_inf)(&sum);
    for (uint x = len; x-- > 0;) {
        ulong k = base + x;
        if (starts[k + 1] > starts[k]) {
            b = buckets[k];
            PT(xyzz_add)(&running, &running, &b);
        }
        PT(xyzz_add)(&sum, &sum, &running);
    }
    seg_r[g] = running;
    seg_s[g] = sum;
}

/* One level of the segment tree: node u of window w (item w * n_out + u, n_out = the nodes
 * per window above, ceil(n_in / TREE_FAN)) merges the TREE_FAN nodes TREE_FAN u + i below,
 * each covering k = 2^log_k segments, child i starting i k segments after the node:
 *   R = sum_i R_i,  S = sum_i S_i,  T = sum_i T_i + k * sum_i i R_i
 * (sum_i i R_i by running sums from the top: TREE_FAN - 1 additions, then log_k doublings).
 * T of the segments themselves is 0 (has_t = 0: t_in is not read). Level l's nodes of window
 * w are at [off + w * n, off + (w + 1) * n) of r, t and s. Longest chain per item:
 * 2 (TREE_FAN - 1) + log_k + TREE_FAN additions. */
__kernel void msm_segment_tree(__global pt_xyzz *r, __global pt_xyzz *t, __global pt_xyzz *s, uint off_in,
                               uint n_in, uint off_out, uint nwin, uint has_t, uint log_k)
{
    uint n_out = (n_in + TREE_FAN - 1) / TREE_FAN, g = get_global_id(0), u;
    if (g >= nwin * n_out)
        return;
    uint w = arith_divrem(g, n_out, &u), lo = u * TREE_FAN, cnt = n_in - lo < TREE_FAN ? n_in - lo : TREE_FAN;
    ulong in = off_in + (ulong)w * n_in + lo, out = off_out + (ulong)w * n_out + u;
    pt_xyzz running, weighted, sum, x;
    PT(xyzz_set_inf)(&running);
    PT(xyzz_set_inf)(&weighted);
    PT(xyzz_set_inf)(&sum);
    for (uint i = cnt; i-- > 1;) {
        x = r[in + i];
        PT(xyzz_add)(&running, &running, &x);
        PT(xyzz_add)(&weighted, &weighted, &running);
    }
    x = r[in];
    PT(xyzz_add)(&running, &running, &x);
    r[out] = running;
    for (uint d = 0; d < log_k; d++)
        PT(xyzz_dbl)(&weighted, &weighted);
    /* T, then S, each stored before the next starts: two points live at a time, not three
     * (with three, BLS12-381's kernel spilled at 255 registers for sm_90: ptx-check.sh) */
    for (uint i = 0; has_t && i < cnt; i++) {
        x = t[in + i];
        PT(xyzz_add)(&weighted, &weighted, &x);
    }
    t[out] = weighted;
    for (uint i = 0; i < cnt; i++) {
        x = s[in + i];
        PT(xyzz_add)(&sum, &sum, &x);
    }
    s[out] = sum;
}

/* Item w: sums[w] = S + L T of window w's root (at off + w of t and s; T = 0 when has_t is
 * 0: one segment), that is sum_j S_j + L sum_j j R_j, L = 2^log_len. */
__kernel void msm_window_sums(__global const pt_xyzz *t, __global const pt_xyzz *s, uint off, uint has_t,
                              uint log_len, uint nwin, __global pt_xyzz *sums)
{
    uint w = get_global_id(0);
    if (w >= nwin)
        return;
    pt_xyzz weighted, x;
    PT(xyzz_set_inf)(&weighted);
    if (has_t)
        weighted = t[off + w];
    for (uint d = 0; d < log_len; d++)
        PT(xyzz_dbl)(&weighted, &weighted);
    x = s[off + w];
    PT(xyzz_add)(&weighted, &weighted, &x);
    sums[w] = weighted;
}
