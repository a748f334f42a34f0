/* rebirth._core: the native hot path of the engine (issue 28).
 *
 * The pure Python engine (src/rebirth/engine/state.py) is the reference and the only
 * definition of the rules; this file repeats, step for step, what the fast path of
 * State.apply_id does (placement, every scoring trigger, farm groups, districts, castles,
 * cathedrals, towers, public missions, the end scoring and the tiebreak), the random and
 * the greedy playouts (bots/mcts.py fast_policy), the heuristic projection
 * (bots/evaluate.py projected), the resampling of an information set (engine/infoset.py
 * resample) and the mcts tree walk (bots/mcts.py MCTSBot.analyse). It draws from a copy of
 * the caller's random.Random (Mersenne Twister, the same words in the same order) and
 * writes the generator's state back, so a game played here is the game the engine plays.
 * tests/core/test_differential.py checks both cores against each other step by step.
 *
 * A state is one flat array of ints (the engine's named tables, laid out by the Tables
 * object of its game): a clone is one memcpy.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ Mersenne Twister */

#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t mt[MT_N];
    int index;
} MT;

static uint32_t mt_next(MT *r) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    if (r->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (r->mt[kk] & 0x80000000U) | (r->mt[kk + 1] & 0x7fffffffU);
            r->mt[kk] = r->mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (r->mt[kk] & 0x80000000U) | (r->mt[kk + 1] & 0x7fffffffU);
            r->mt[kk] = r->mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (r->mt[MT_N - 1] & 0x80000000U) | (r->mt[0] & 0x7fffffffU);
        r->mt[MT_N - 1] = r->mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
        r->index = 0;
    }
    y = r->mt[r->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* random.random(): 53 bits from two words, as CPython's _randommodule.c. */
static double mt_random(MT *r) {
    uint32_t a = mt_next(r) >> 5, b = mt_next(r) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

static uint32_t mt_bits(MT *r, int k) { /* getrandbits(k), 1 <= k <= 32 */
    return mt_next(r) >> (32 - k);
}

/* Random._randbelow_with_getrandbits(n), n >= 1 */
static int mt_below(MT *r, int n) {
    int k = 0;
    uint32_t x = (uint32_t)n;
    while (x) { k++; x >>= 1; }
    uint32_t v = mt_bits(r, k);
    while (v >= (uint32_t)n) v = mt_bits(r, k);
    return (int)v;
}

static void mt_shuffle(MT *r, int *x, int len) {
    for (int i = len - 1; i >= 1; i--) {
        int j = mt_below(r, i + 1);
        int t = x[i]; x[i] = x[j]; x[j] = t;
    }
}

static void mt_init_genrand(MT *r, uint32_t s) {
    r->mt[0] = s;
    for (int i = 1; i < MT_N; i++)
        r->mt[i] = (1812433253U * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i);
    r->index = MT_N;
}

static void mt_init_by_array(MT *r, const uint32_t *key, size_t keylen) {
    size_t i = 1, j = 0, k;
    mt_init_genrand(r, 19650218U);
    k = (MT_N > keylen ? MT_N : keylen);
    for (; k; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++; j++;
        if (i >= MT_N) { r->mt[0] = r->mt[MT_N - 1]; i = 1; }
        if (j >= keylen) j = 0;
    }
    for (k = MT_N - 1; k; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= MT_N) { r->mt[0] = r->mt[MT_N - 1]; i = 1; }
    }
    r->mt[0] = 0x80000000U;
    r->index = MT_N;
}

/* random.Random(seed) for a seed below 2**64 (one word when it fits in 32 bits). */
static void mt_seed64(MT *r, uint64_t s) {
    uint32_t key[2] = {(uint32_t)s, (uint32_t)(s >> 32)};
    mt_init_by_array(r, key, key[1] ? 2 : 1);
}

/* Read / write a Python random.Random's state (getstate / setstate). */
static int mt_from_py(MT *r, PyObject *rng) {
    PyObject *st = PyObject_CallMethod(rng, "getstate", NULL);
    if (!st) return -1;
    if (!PyTuple_Check(st) || PyTuple_GET_SIZE(st) != 3) {
        Py_DECREF(st);
        PyErr_SetString(PyExc_TypeError, "unexpected random state");
        return -1;
    }
    PyObject *words = PyTuple_GET_ITEM(st, 1);
    if (!PyTuple_Check(words) || PyTuple_GET_SIZE(words) != MT_N + 1) {
        Py_DECREF(st);
        PyErr_SetString(PyExc_TypeError, "unexpected random state");
        return -1;
    }
    for (int i = 0; i < MT_N; i++) {
        unsigned long v = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(words, i));
        if (v == (unsigned long)-1 && PyErr_Occurred()) { Py_DECREF(st); return -1; }
        r->mt[i] = (uint32_t)v;
    }
    long ix = PyLong_AsLong(PyTuple_GET_ITEM(words, MT_N));
    Py_DECREF(st);
    if (ix == -1 && PyErr_Occurred()) return -1;
    if (ix < 0 || ix > MT_N) { PyErr_SetString(PyExc_ValueError, "bad random state"); return -1; }
    r->index = (int)ix;
    return 0;
}

static int mt_to_py(const MT *r, PyObject *rng) {
    PyObject *old = PyObject_CallMethod(rng, "getstate", NULL);
    if (!old) return -1;
    PyObject *words = PyTuple_New(MT_N + 1);
    if (!words) { Py_DECREF(old); return -1; }
    for (int i = 0; i < MT_N; i++) {
        PyObject *v = PyLong_FromUnsignedLong(r->mt[i]);
        if (!v) { Py_DECREF(words); Py_DECREF(old); return -1; }
        PyTuple_SET_ITEM(words, i, v);
    }
    PyTuple_SET_ITEM(words, MT_N, PyLong_FromLong(r->index));
    PyObject *st = Py_BuildValue("(OOO)", PyTuple_GET_ITEM(old, 0), words, PyTuple_GET_ITEM(old, 2));
    Py_DECREF(words);
    Py_DECREF(old);
    if (!st) return -1;
    PyObject *res = PyObject_CallMethod(rng, "setstate", "(O)", st);
    Py_DECREF(st);
    if (!res) return -1;
    Py_DECREF(res);
    return 0;
}

/* ------------------------------------------------------------------- tables */

enum { PH_PLACE = 0, PH_EXTRA = 1, PH_MARK = 2, PH_END = 3, PH_CHANCE = 4 };
enum { L_ENERGY = 0, L_FOOD = 1, L_EITHER = 2, L_SETTLE = 3 };
enum { K_ENERGY = 0, K_FOOD = 1, K_BLANK = 2, K_FLEXIBLE = 3, K_SETTLEMENT = 4 };
enum { C_FARMS, C_SETTLE, C_PORTS, C_CASTLES, C_MISSIONS, C_OFFSHORE, C_TOWERS, C_PUBLIC, NCAT };
enum { CO_NONE = -1, CO_FARM_GROUP, CO_CASTLES_HELD, CO_TOWERS_VISITED, CO_DISTRICT_FIRSTS,
       CO_OFFSHORE_FARMS, CO_TILES_IN_PROVINCES };
enum { TK_POINTS = 0, TK_EXTRA = 1, TK_DOUBLE = 2, TK_CARD = 3 };
enum { MS_NONE = 0, MS_COUNT = 1, MS_SETTLEMENTS = 2 };
#define NEUTRAL 4
#define TCAP 48 /* tiles per seat in a supply, set aside or discarded: at most 36 (S-1) */
#define MAXP 4

typedef struct {
    PyObject_HEAD
    int n, ns, nd, nc, nk, nt, nr, ncards, ntok, ireland;
    int v_castle_tie, v_incomplete_small, v_medium_completer, v_stirling_literal;
    int own_set_aside, set_aside_public;
    int obs[48]; /* the observation layout (OB_*), set by set_observation; obs[0] 0 until then */
    int *kind, *list_of, *district, *region, *port, *offshore;
    int *nb_off, *nb, *ac_off, *ac, *ak_off, *ak, *at_off, *at;
    int *dsize;
    int nblockers, *blockers;
    int *card_points, *card_v0, *card_v1, *cond_kind, *cond_a, *cond_b, *mtype, *minf;
    int *ms_off, *ms;
    int *tok_kind, *tok_points;
    int ntb, *tb_kind, *tb_ix;
    int ntiles, kset, *tiles;
    int *tw_off, *tw;
    int *mem; /* every array above, one allocation */
    /* The layout of a state (offsets into its ints). */
    int o_score, o_cat, o_owner, o_tile, o_parent, o_gsize, o_free, o_freelen, o_free_at,
        o_region_tiles, o_largest, o_offshore, o_placed, o_filled, o_last_placer, o_influence,
        o_first_ranks, o_cadj, o_cadjf, o_holder, o_held, o_cath, o_tvis, o_tvisited, o_deck,
        o_display, o_cathc, o_towc, o_fulfilled, o_first_paid, o_marks, o_supply, o_drawn,
        o_hand, o_aside, o_known, o_discarded, o_tokens, o_winners, size;
} Tables;

/* Scalars at the start of every state. */
enum { S_PHASE, S_CUR, S_TURN, S_DONE, S_PEXTRA, S_PDOUBLE, S_EXTRA_TILE, S_NEXT_CARD, S_DECK_LEN,
       S_DISPLAY_LEN, S_NSCALARS };

/* A list with its length first: [len, item0, item1, ...]. */
#define LCAP_CARDS(t) ((t)->ncards + 1)
#define LCAP_TILES (TCAP + 1)

typedef struct {
    const Tables *t;
    int *a;
} St;

#define T (s->t)
#define A (s->a)
#define SC(i) (A[(i)])
#define SCORE(q) A[T->o_score + (q)]
#define CAT(c, q) A[T->o_cat + (c) * T->n + (q)]
#define OWNER(h) A[T->o_owner + (h)]
#define TILE(h) A[T->o_tile + (h)]
#define PARENT (A + T->o_parent)
#define GSIZE(h) A[T->o_gsize + (h)]
#define FREE(k) (A + T->o_free + (k) * T->ns)
#define FREELEN(k) A[T->o_freelen + (k)]
#define FREE_AT(h) A[T->o_free_at + (h)]
#define REGION_TILES(r, q) A[T->o_region_tiles + (r) * T->n + (q)]
#define LARGEST(q) A[T->o_largest + (q)]
#define OFFSHORE(q) A[T->o_offshore + (q)]
#define PLACED(q) A[T->o_placed + (q)]
#define FILLED(d) A[T->o_filled + (d)]
#define LAST_PLACER(d) A[T->o_last_placer + (d)]
#define INFL(d, q) A[T->o_influence + (d) * T->n + (q)]
#define FIRST_RANKS(q) A[T->o_first_ranks + (q)]
#define CADJ(c, q) A[T->o_cadj + (c) * T->n + (q)]
#define CADJF(c, q) A[T->o_cadjf + (c) * T->n + (q)]
#define HOLDER(c) A[T->o_holder + (c)]
#define HELD(q) A[T->o_held + (q)]
#define CATH(k) A[T->o_cath + (k)]
#define TVIS(k) A[T->o_tvis + (k)]
#define TVISITED(q) A[T->o_tvisited + (q)]
#define DECK (A + T->o_deck)
#define DISPLAY (A + T->o_display)
#define CATHC(q) (A + T->o_cathc + (q) * LCAP_CARDS(T))
#define TOWC(q) (A + T->o_towc + (q) * LCAP_CARDS(T))
#define FULFILLED(m) A[T->o_fulfilled + (m)]
#define FIRST_PAID(m) A[T->o_first_paid + (m)]
#define MARKS(q) (A + T->o_marks + (q) * LCAP_CARDS(T))
#define SUPPLY(q) (A + T->o_supply + (q) * LCAP_TILES)
#define DRAWN(q) A[T->o_drawn + (q)]
#define HAND(q) A[T->o_hand + (q)]
#define ASIDE(q) (A + T->o_aside + (q) * LCAP_TILES)
#define KNOWN(q) (A + T->o_known + (q) * LCAP_TILES)
#define DISCARDED(q) (A + T->o_discarded + (q) * LCAP_TILES)
#define TOKENS(i) A[T->o_tokens + (i)]
#define WINNERS (A + T->o_winners)

static void tables_layout(Tables *t) {
    int n = t->n, o = S_NSCALARS;
#define PUT(f, k) do { t->f = o; o += (k); } while (0)
    PUT(o_score, n); PUT(o_cat, NCAT * n); PUT(o_owner, t->ns); PUT(o_tile, t->ns);
    PUT(o_parent, t->ns); PUT(o_gsize, t->ns); PUT(o_free, 4 * t->ns); PUT(o_freelen, 4);
    PUT(o_free_at, t->ns); PUT(o_region_tiles, t->nr * n); PUT(o_largest, n); PUT(o_offshore, n);
    PUT(o_placed, n); PUT(o_filled, t->nd); PUT(o_last_placer, t->nd); PUT(o_influence, t->nd * n);
    PUT(o_first_ranks, n); PUT(o_cadj, t->nc * n); PUT(o_cadjf, t->nc * n); PUT(o_holder, t->nc);
    PUT(o_held, n); PUT(o_cath, t->nk); PUT(o_tvis, t->nt); PUT(o_tvisited, n);
    PUT(o_deck, t->ncards); PUT(o_display, t->ncards); PUT(o_cathc, n * LCAP_CARDS(t));
    PUT(o_towc, n * LCAP_CARDS(t)); PUT(o_fulfilled, t->ncards); PUT(o_first_paid, t->ncards);
    PUT(o_marks, n * LCAP_CARDS(t)); PUT(o_supply, n * LCAP_TILES); PUT(o_drawn, n);
    PUT(o_hand, n); PUT(o_aside, n * LCAP_TILES); PUT(o_known, n * LCAP_TILES);
    PUT(o_discarded, n * LCAP_TILES); PUT(o_tokens, t->nt); PUT(o_winners, n + 1);
#undef PUT
    t->size = o;
}

/* ------------------------------------------------------------------ the rules */

static const int RANKS[5][3] = {{0, 0, 0}, {0, 0, 0}, {5, 3, 0}, {8, 5, 0}, {12, 8, 5}};
static const int NRANKS[5] = {0, 0, 2, 2, 3};

static inline void pay(St *s, int q, int pts, int cat) {
    SCORE(q) += pts;
    CAT(cat, q) += pts;
}

static inline int uf_find(int *parent, int x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* rank_order: influence descending, then the completer loses (or wins) every tie and the
 * others follow clockwise from the player after the completer (a stable insertion sort on
 * the same key as Python's list.sort). */
static void rank_order(int *present, int k, const int *infl, int completer, int n, int completer_wins) {
    int key2[MAXP];
    for (int i = 0; i < k; i++) {
        int q = present[i];
        if (q == completer) key2[i] = completer_wins ? -1 : n;
        else key2[i] = ((q - completer - 1) % n + n) % n;
    }
    for (int i = 1; i < k; i++) {
        int q = present[i], k2 = key2[i], j = i - 1;
        while (j >= 0 && (infl[present[j]] < infl[q] ||
                          (infl[present[j]] == infl[q] && key2[j] > k2))) {
            present[j + 1] = present[j];
            key2[j + 1] = key2[j];
            j--;
        }
        present[j + 1] = q;
        key2[j + 1] = k2;
    }
}

static void draw_tile(St *s, int p) {
    int *sup = SUPPLY(p);
    int i = DRAWN(p);
    if (i < sup[0]) {
        HAND(p) = sup[1 + i];
        DRAWN(p) = i + 1;
    }
}

static inline int has_space_for(St *s, int t) {
    if (t >= 2) return FREELEN(L_SETTLE) > 0;
    return FREELEN(0) || FREELEN(1) || FREELEN(2);
}

static int face_down(St *s, int p, int *out) {
    int *a = ASIDE(p), *k = KNOWN(p);
    int len = a[0];
    for (int i = 0; i < len; i++) out[i] = a[1 + i];
    for (int j = 0; j < k[0]; j++) {
        int t = k[1 + j];
        for (int i = 0; i < len; i++) {
            if (out[i] == t) {
                memmove(out + i, out + i + 1, sizeof(int) * (len - i - 1));
                len--;
                break;
            }
        }
    }
    return len;
}

static int mark_options(St *s, int p, int *out) {
    int bit = 1 << p, k = 0;
    int *mine = MARKS(p);
    for (int i = 0; i < SC(S_DISPLAY_LEN); i++) {
        int m = DISPLAY[i];
        if (FULFILLED(m) & bit) continue;
        int marked = 0;
        for (int j = 0; j < mine[0]; j++) if (mine[1 + j] == m) { marked = 1; break; }
        if (!marked) { if (out) out[k] = m; k++; }
    }
    return k;
}

static int mission_value(St *s, int card, int q) {
    const Tables *t = T;
    int n = t->n, out = 0;
    for (int i = t->ms_off[card]; i < t->ms_off[card + 1]; i++) {
        int h = t->ms[i], o = OWNER(h);
        if (o != q || o >= n) continue;
        if (t->mtype[card] == MS_SETTLEMENTS) {
            int inf = t->minf[card];
            if (inf && TILE(h) - 1 != inf) continue;
        }
        out++;
    }
    return out;
}

static int meets(St *s, int card, int q) {
    const Tables *t = T;
    int a = t->cond_a[card];
    switch (t->cond_kind[card]) {
    case CO_FARM_GROUP: return LARGEST(q) >= a;
    case CO_CASTLES_HELD: return HELD(q) >= a;
    case CO_TOWERS_VISITED: return TVISITED(q) >= a;
    case CO_DISTRICT_FIRSTS: return FIRST_RANKS(q) >= a;
    case CO_OFFSHORE_FARMS: return OFFSHORE(q) >= a;
    case CO_TILES_IN_PROVINCES: {
        int c = 0;
        for (int r = 0; r < t->nr; r++) if (REGION_TILES(r, q) >= a) c++;
        return c >= t->cond_b[card];
    }
    default: return 0;
    }
}

static int secret_fulfilled(St *s, int card, int q) {
    if (T->ireland) return meets(s, card, q);
    int mine = 0, best = 0;
    for (int o = 0; o < T->n; o++) {
        int v = mission_value(s, card, o);
        if (o == q) mine = v;
        if (v > best) best = v;
    }
    return mine >= 1 && mine == best;
}

static void score_district(St *s, int d, int completer, int final) {
    const Tables *t = T;
    int n = t->n, size = t->dsize[d];
    int present[MAXP], k = 0;
    const int *infl = A + t->o_influence + d * n;
    for (int q = 0; q < n; q++) if (infl[q] > 0) present[k++] = q;
    if (!k) return;
    if (final && t->v_incomplete_small) {
        for (int i = 0; i < k; i++) pay(s, present[i], infl[present[i]], C_SETTLE);
        return;
    }
    if (k == 1 && !final) {
        int pts = 0;
        for (int i = 0; i < NRANKS[size]; i++) pts += RANKS[size][i];
        pay(s, present[0], pts, C_SETTLE);
        if (SC(S_DISPLAY_LEN)) FIRST_RANKS(present[0]) += 1;
        return;
    }
    rank_order(present, k, infl, completer, n, size == 2 && t->v_medium_completer);
    for (int i = 0; i < k && i < NRANKS[size]; i++) {
        pay(s, present[i], RANKS[size][i], C_SETTLE);
        if (i == 0 && !final && SC(S_DISPLAY_LEN)) FIRST_RANKS(present[i]) += 1;
    }
}

static int draw_card(St *s, int *into) {
    if (SC(S_NEXT_CARD) >= SC(S_DECK_LEN)) return -1;
    int card = DECK[SC(S_NEXT_CARD)];
    SC(S_NEXT_CARD) += 1;
    into[1 + into[0]] = card;
    into[0] += 1;
    return card;
}

static void public_missions(St *s, int p, int completed) {
    const Tables *t = T;
    int n = t->n;
    for (int off = 0; off < (completed ? n : 1); off++) {
        int q = (p + off) % n, bit = 1 << q;
        for (int i = 0; i < SC(S_DISPLAY_LEN); i++) {
            int m = DISPLAY[i];
            if ((FULFILLED(m) & bit) || !meets(s, m, q)) continue;
            FULFILLED(m) |= bit;
            int first = !FIRST_PAID(m);
            FIRST_PAID(m) = 1;
            int pts = first ? t->card_v0[m] : t->card_v1[m];
            int *mk = MARKS(q);
            for (int j = 0; j < mk[0]; j++) if (mk[1 + j] == m) { pts *= 2; break; }
            pay(s, q, pts, C_PUBLIC);
        }
    }
}

static void place(St *s, int p, int h, int t) {
    const Tables *tb = T;
    int li = tb->list_of[h];
    int *lst = FREE(li);
    int i = FREE_AT(h);
    int last = lst[--FREELEN(li)];
    if (last != h) {
        lst[i] = last;
        FREE_AT(last) = i;
    }
    OWNER(h) = p;
    TILE(h) = t;
    PLACED(p) += 1;
    REGION_TILES(tb->region[h], p) += 1;
    int farm = t < 2, completed = 0;
    if (farm) {
        int *parent = PARENT, root = h;
        for (int j = tb->nb_off[h]; j < tb->nb_off[h + 1]; j++) {
            int nb = tb->nb[j];
            if (OWNER(nb) == p && TILE(nb) == t) {
                int r = uf_find(parent, nb);
                if (r != root) {
                    if (GSIZE(r) > GSIZE(root)) {
                        parent[root] = r;
                        GSIZE(r) += GSIZE(root);
                        root = r;
                    } else {
                        parent[r] = root;
                        GSIZE(root) += GSIZE(r);
                    }
                }
            }
        }
        int g = GSIZE(root);
        SCORE(p) += g;
        CAT(C_FARMS, p) += g;
        if (g > LARGEST(p)) LARGEST(p) = g;
        if (tb->offshore[h]) {
            pay(s, p, 1, C_OFFSHORE);
            OFFSHORE(p) += 1;
        }
    } else {
        int d = tb->district[h], inf = t - 1;
        INFL(d, p) += inf;
        FILLED(d) += 1;
        LAST_PLACER(d) = p;
        int size_d = tb->dsize[d];
        if (size_d == 1) pay(s, p, inf, C_SETTLE);
        if (tb->port[h]) pay(s, p, 1, C_PORTS);
        if (size_d > 1 && FILLED(d) == size_d) {
            completed = 1;
            score_district(s, d, p, 0);
        }
    }
    for (int j = tb->ac_off[h]; j < tb->ac_off[h + 1]; j++) {
        int c = tb->ac[j];
        CADJ(c, p) += 1;
        if (farm) CADJF(c, p) += 1;
        int hol = HOLDER(c);
        if (hol == p) continue;
        if (hol < 0) {
            HOLDER(c) = p;
            HELD(p) += 1;
            continue;
        }
        int mine = CADJ(c, p), theirs = CADJ(c, hol);
        int take = mine > theirs;
        if (mine == theirs) {
            int mf = CADJF(c, p), tf = CADJF(c, hol);
            take = mf > tf || (mf == tf && tb->v_castle_tie);
        }
        if (take) {
            HOLDER(c) = p;
            HELD(p) += 1;
            HELD(hol) -= 1;
        }
    }
    int bit = 1 << p;
    for (int j = tb->ak_off[h]; j < tb->ak_off[h + 1]; j++) {
        int k = tb->ak[j];
        if (CATH(k) & bit) continue;
        CATH(k) |= bit;
        draw_card(s, CATHC(p));
    }
    for (int j = tb->at_off[h]; j < tb->at_off[h + 1]; j++) {
        int tw = tb->at[j];
        if (TVIS(tw) & bit) continue;
        TVIS(tw) |= bit;
        TVISITED(p) += 1;
        int tok = TOKENS(tw);
        switch (tb->tok_kind[tok]) {
        case TK_POINTS: pay(s, p, tb->tok_points[tok], C_TOWERS); break;
        case TK_EXTRA: SC(S_PEXTRA) += 1; break;
        case TK_DOUBLE: SC(S_PDOUBLE) += 1; break;
        default: draw_card(s, TOWC(p)); break;
        }
    }
    if (SC(S_DISPLAY_LEN)) public_missions(s, p, completed);
}

static int tara_count(St *s, int tower, int q) {
    int c = 0;
    for (int i = T->tw_off[tower]; i < T->tw_off[tower + 1]; i++) if (OWNER(T->tw[i]) == q) c++;
    return c;
}

static void decide_winners(St *s) {
    const Tables *t = T;
    int n = t->n, best = SCORE(0);
    int tied[MAXP], k = 0;
    int *w = WINNERS;
    for (int q = 1; q < n; q++) if (SCORE(q) > best) best = SCORE(q);
    for (int q = 0; q < n; q++) if (SCORE(q) == best) tied[k++] = q;
    if (k > 1) {
        int literal_step = -1;
        if (t->v_stirling_literal)
            for (int i = 0; i < t->ntb; i++) if (t->tb_kind[i] == 0) literal_step = i;
        for (int step = 0; step < t->ntb; step++) {
            int ix = t->tb_ix[step];
            if (t->tb_kind[step] == 0) {
                int hol = HOLDER(ix), in = 0;
                for (int i = 0; i < k; i++) if (tied[i] == hol) in = 1;
                if (in || (step == literal_step && hol >= 0)) {
                    w[0] = 1; w[1] = hol;
                    return;
                }
            } else {
                int counts[MAXP], top = -1, k2 = 0;
                for (int i = 0; i < k; i++) {
                    counts[i] = tara_count(s, ix, tied[i]);
                    if (counts[i] > top) top = counts[i];
                }
                for (int i = 0; i < k; i++) if (counts[i] == top) tied[k2++] = tied[i];
                k = k2;
                if (k == 1) break;
            }
        }
    }
    w[0] = k;
    for (int i = 0; i < k; i++) w[1 + i] = tied[i];
}

static void finish(St *s) {
    const Tables *t = T;
    SC(S_DONE) = 1;
    SC(S_PHASE) = PH_END;
    SC(S_CUR) = -1;
    for (int d = 0; d < t->nd; d++) {
        int f = FILLED(d);
        if (0 < f && f < t->dsize[d]) score_district(s, d, LAST_PLACER(d), 1);
    }
    for (int c = 0; c < t->nc; c++) if (HOLDER(c) >= 0) pay(s, HOLDER(c), 5, C_CASTLES);
    for (int q = 0; q < t->n; q++) {
        int *cards = t->ireland ? TOWC(q) : CATHC(q);
        for (int i = 0; i < cards[0]; i++) {
            int card = cards[1 + i];
            if (secret_fulfilled(s, card, q))
                pay(s, q, t->ireland ? t->card_v0[card] : t->card_points[card], C_MISSIONS);
        }
    }
    decide_winners(s);
}

/* 0, or -1 when no player can act (the engine raises RuntimeError there). */
static int start_turn(St *s) {
    int n = T->n;
    for (int it = 0; it < 64 * n; it++) {
        int p = SC(S_CUR), t = HAND(p);
        if (t < 0) {
            int all = 1;
            for (int q = 0; q < n; q++) if (HAND(q) >= 0) { all = 0; break; }
            if (all) { finish(s); return 0; }
            SC(S_CUR) = (p + 1) % n;
            continue;
        }
        if (has_space_for(s, t)) { SC(S_PHASE) = PH_PLACE; return 0; }
        HAND(p) = -1;
        int *dis = DISCARDED(p);
        if (dis[0] >= TCAP) return -1;
        dis[1 + dis[0]] = t;
        dis[0] += 1;
        draw_tile(s, p);
        SC(S_CUR) = (p + 1) % n;
    }
    return -1;
}

static int continue_turn(St *s) {
    int p = SC(S_CUR);
    while (SC(S_PEXTRA)) {
        SC(S_PEXTRA) -= 1;
        if (ASIDE(p)[0] > KNOWN(p)[0]) { SC(S_PHASE) = PH_CHANCE; return 0; }
    }
    while (SC(S_PDOUBLE)) {
        if (mark_options(s, p, NULL)) { SC(S_PHASE) = PH_MARK; return 0; }
        SC(S_PDOUBLE) -= 1;
    }
    draw_tile(s, p);
    SC(S_TURN) += 1;
    SC(S_CUR) = (p + 1) % T->n;
    return start_turn(s);
}

static int resolve_extra(St *s, int p, int t) {
    if (!has_space_for(s, t)) {
        int *k = KNOWN(p);
        k[1 + k[0]] = t;
        k[0] += 1;
        SC(S_PHASE) = PH_PLACE;
        return continue_turn(s);
    }
    int *a = ASIDE(p);
    for (int i = 0; i < a[0]; i++) {
        if (a[1 + i] == t) {
            memmove(a + 1 + i, a + 2 + i, sizeof(int) * (a[0] - i - 1));
            a[0] -= 1;
            break;
        }
    }
    SC(S_EXTRA_TILE) = t;
    SC(S_PHASE) = PH_EXTRA;
    return 0;
}

/* State.apply_id: a legal action (or chance outcome); no checks. */
static int apply_id(St *s, int aid) {
    int p = SC(S_CUR);
    if (SC(S_PHASE) == PH_CHANCE) return resolve_extra(s, p, aid);
    if (SC(S_PHASE) == PH_MARK) {
        int *mk = MARKS(p);
        mk[1 + mk[0]] = aid - T->ns;
        mk[0] += 1;
        SC(S_PDOUBLE) -= 1;
        return continue_turn(s);
    }
    int t;
    if (SC(S_PHASE) == PH_PLACE) {
        t = HAND(p);
        HAND(p) = -1;
    } else {
        t = SC(S_EXTRA_TILE);
        SC(S_EXTRA_TILE) = -1;
    }
    place(s, p, aid, t);
    return continue_turn(s);
}

static inline int tile_to_place(St *s) {
    if (SC(S_PHASE) == PH_PLACE) return HAND(SC(S_CUR));
    if (SC(S_PHASE) == PH_EXTRA) return SC(S_EXTRA_TILE);
    return -1;
}

static int legal_ids(St *s, int *out) {
    if (SC(S_DONE)) return 0;
    if (SC(S_PHASE) == PH_MARK) {
        int k = mark_options(s, SC(S_CUR), out);
        for (int i = 0; i < k; i++) out[i] += T->ns;
        return k;
    }
    if (SC(S_PHASE) == PH_CHANCE) {
        int fd[LCAP_TILES], k = face_down(s, SC(S_CUR), fd), m = 0;
        for (int t = 0; t < 6; t++)
            for (int i = 0; i < k; i++) if (fd[i] == t) { out[m++] = t; break; }
        return m;
    }
    int t = tile_to_place(s), k = 0;
    if (t >= 2) {
        memcpy(out, FREE(L_SETTLE), sizeof(int) * FREELEN(L_SETTLE));
        return FREELEN(L_SETTLE);
    }
    int own = t == 0 ? L_ENERGY : L_FOOD;
    memcpy(out, FREE(own), sizeof(int) * FREELEN(own));
    k = FREELEN(own);
    memcpy(out + k, FREE(L_EITHER), sizeof(int) * FREELEN(L_EITHER));
    k += FREELEN(L_EITHER);
    if (k) return k;
    int other = t == 0 ? L_FOOD : L_ENERGY;
    memcpy(out, FREE(other), sizeof(int) * FREELEN(other));
    return FREELEN(other);
}

static int sample_chance(St *s, MT *r) {
    int fd[LCAP_TILES], k = face_down(s, SC(S_CUR), fd);
    return fd[(int)(mt_random(r) * k)];
}

static int random_action_id(St *s, MT *r) {
    if (SC(S_PHASE) == PH_CHANCE) return sample_chance(s, r);
    if (SC(S_PHASE) == PH_MARK) {
        int opts[LCAP_TILES + 64];
        int k = mark_options(s, SC(S_CUR), NULL);
        int *buf = opts;
        int *heap = NULL;
        if (k > (int)(sizeof(opts) / sizeof(int))) {
            heap = PyMem_Malloc(sizeof(int) * k);
            buf = heap;
        }
        mark_options(s, SC(S_CUR), buf);
        int a = buf[(int)(mt_random(r) * k)] + T->ns;
        PyMem_Free(heap);
        return a;
    }
    int t = SC(S_PHASE) == PH_PLACE ? HAND(SC(S_CUR)) : SC(S_EXTRA_TILE);
    if (t >= 2) return FREE(L_SETTLE)[(int)(mt_random(r) * FREELEN(L_SETTLE))];
    int own = t == 0 ? L_ENERGY : L_FOOD;
    int la = FREELEN(own), le = FREELEN(L_EITHER), k = la + le;
    if (k) {
        int i = (int)(mt_random(r) * k);
        return i < la ? FREE(own)[i] : FREE(L_EITHER)[i - la];
    }
    int other = t == 0 ? L_FOOD : L_ENERGY;
    return FREE(other)[(int)(mt_random(r) * FREELEN(other))];
}

/* State.best_farm_spaces; out gets the best spaces in the order given. */
static int best_farm_spaces(St *s, const int *spaces, int ns, int p, int t, int *out) {
    const Tables *tb = T;
    int *parent = PARENT;
    int best_g = -1, k = 0;
    for (int i = 0; i < ns; i++) {
        int h = spaces[i], g = 1, roots[8], nroots = 0;
        for (int j = tb->nb_off[h]; j < tb->nb_off[h + 1]; j++) {
            int nb = tb->nb[j];
            if (OWNER(nb) == p && TILE(nb) == t) {
                int r = nb;
                while (parent[r] != r) r = parent[r];
                int seen = 0;
                for (int x = 0; x < nroots; x++) if (roots[x] == r) { seen = 1; break; }
                if (!seen) {
                    if (nroots < 8) roots[nroots++] = r;
                    g += GSIZE(r);
                }
            }
        }
        if (g > best_g) { best_g = g; k = 0; out[k++] = h; }
        else if (g == best_g) out[k++] = h;
    }
    return k;
}

/* bots/mcts.py fast_policy */
static int fast_policy(St *s, MT *r, double epsilon, int *buf, int *buf2) {
    int ph = SC(S_PHASE);
    if ((ph != PH_PLACE && ph != PH_EXTRA) || mt_random(r) < epsilon) return random_action_id(s, r);
    const Tables *tb = T;
    int t = tile_to_place(s), p = SC(S_CUR), n = tb->n;
    if (t >= 2) {
        int *cands = FREE(L_SETTLE), nc = FREELEN(L_SETTLE), k = 0;
        double best_v = -1.0;
        int inf = t - 1;
        for (int i = 0; i < nc; i++) {
            int h = cands[i], d = tb->district[h], dsize = tb->dsize[d];
            double v;
            if (dsize == 1) v = (double)inf;
            else {
                int mine = INFL(d, p) + inf, top = INT32_MIN;
                for (int q = 0; q < n; q++) if (q != p && INFL(d, q) > top) top = INFL(d, q);
                int lead = mine > top;
                v = (lead ? 2.0 : 0.5) * (double)(1 + FILLED(d)) / (double)dsize;
            }
            if (tb->port[h]) v += 1;
            if (v > best_v) { best_v = v; k = 0; buf[k++] = h; }
            else if (v == best_v) buf[k++] = h;
        }
        return buf[(int)(mt_random(r) * k)];
    }
    int own = t == 0 ? L_ENERGY : L_FOOD;
    int lo = FREELEN(own), le = FREELEN(L_EITHER), nc;
    if (lo || le) {
        memcpy(buf2, FREE(own), sizeof(int) * lo);
        memcpy(buf2 + lo, FREE(L_EITHER), sizeof(int) * le);
        nc = lo + le;
    } else {
        int other = t == 0 ? L_FOOD : L_ENERGY;
        nc = FREELEN(other);
        memcpy(buf2, FREE(other), sizeof(int) * nc);
    }
    int k = best_farm_spaces(s, buf2, nc, p, t, buf);
    return buf[(int)(mt_random(r) * k)];
}

/* bots/evaluate.py projected with its DEFAULT weights (passed in w[5]). */
static void projected(St *s, const double *w, double *val, int *scratch) {
    const Tables *tb = T;
    int n = tb->n;
    for (int q = 0; q < n; q++) val[q] = (double)SCORE(q);
    for (int c = 0; c < tb->nc; c++) if (HOLDER(c) >= 0) val[HOLDER(c)] += 5 * w[0];
    for (int d = 0; d < tb->nd; d++) {
        int f = FILLED(d), size = tb->dsize[d];
        if (f == 0 || f == size) continue;
        const int *infl = A + tb->o_influence + d * n;
        int present[MAXP], k = 0;
        for (int q = 0; q < n; q++) if (infl[q] > 0) present[k++] = q;
        if (!k) continue;
        if (tb->v_incomplete_small) {
            for (int i = 0; i < k; i++) val[present[i]] += infl[present[i]] * w[1];
            continue;
        }
        rank_order(present, k, infl, LAST_PLACER(d), n, size == 2 && tb->v_medium_completer);
        for (int i = 0; i < k && i < NRANKS[size]; i++) val[present[i]] += RANKS[size][i] * w[1];
    }
    for (int q = 0; q < n; q++) {
        int *own = tb->ireland ? TOWC(q) : CATHC(q);
        for (int i = 0; i < own[0]; i++) {
            int c = own[1 + i];
            int pts = tb->ireland ? tb->card_v0[c] : tb->card_points[c];
            val[q] += pts * (secret_fulfilled(s, c, q) ? w[2] : w[3]);
        }
    }
    if (w[4] == 0.0) return;
    /* _farm_growth: per group root (in the order first seen), its free fitting frontier
     * (only whether it has 0, 1 or 2+ distinct spaces matters). */
    int ns = tb->ns;
    int *root_order = scratch, *root_count = scratch + ns, *root_first = scratch + 2 * ns,
        *root_owner = scratch + 3 * ns, nroots = 0;
    int *parent = PARENT;
    for (int h = 0; h < ns; h++) root_count[h] = -1;
    for (int h = 0; h < ns; h++) {
        int p = OWNER(h);
        if (p < 0 || p >= n) continue;
        int t = TILE(h);
        if (t > 1) continue;
        int r = h;
        while (parent[r] != r) r = parent[r];
        for (int j = tb->nb_off[h]; j < tb->nb_off[h + 1]; j++) {
            int nb = tb->nb[j];
            if (OWNER(nb) != -1) continue;
            int kd = tb->kind[nb];
            if (!(kd == t || kd == K_BLANK || kd == K_FLEXIBLE)) continue;
            if (root_count[r] < 0) {
                root_count[r] = 0;
                root_order[nroots++] = r;
            }
            root_owner[r] = p;
            if (root_count[r] == 0) { root_first[r] = nb; root_count[r] = 1; }
            else if (root_count[r] == 1 && root_first[r] != nb) root_count[r] = 2;
        }
    }
    for (int i = 0; i < nroots; i++) {
        int r = root_order[i], g = GSIZE(r), m = root_count[r];
        val[root_owner[r]] += w[4] * (g + 1) * m / 2;
    }
}

/* infoset.resample for `seat`: a twin with everything hidden from seat drawn again. */
static void resample(St *s, int seat, MT *r) {
    const Tables *tb = T;
    int n = tb->n;
    int pool[3 * LCAP_TILES];
    for (int q = 0; q < n; q++) {
        int *sup = SUPPLY(q), dr = DRAWN(q);
        int *aside = ASIDE(q), *known = KNOWN(q);
        /* infoset.Visibility.sees_set_aside */
        int sees = tb->set_aside_public || (seat == q && tb->own_set_aside);
        int hidden = !sees;
        int rest[LCAP_TILES], nrest = aside[0];
        for (int i = 0; i < nrest; i++) rest[i] = aside[1 + i];
        int nknown = hidden ? known[0] : 0;
        for (int j = 0; j < nknown; j++) {
            int t = known[1 + j];
            for (int i = 0; i < nrest; i++)
                if (rest[i] == t) { memmove(rest + i, rest + i + 1, sizeof(int) * (nrest - i - 1)); nrest--; break; }
        }
        int has_hand = q != seat && HAND(q) >= 0;
        int np = 0;
        if (has_hand) pool[np++] = HAND(q);
        for (int i = dr; i < sup[0]; i++) pool[np++] = sup[1 + i];
        int k = hidden ? nrest : 0;
        for (int i = 0; i < k; i++) pool[np++] = rest[i];
        mt_shuffle(r, pool, np);
        int off = 0;
        if (hidden) {
            int na = 0;
            int kn[LCAP_TILES];
            for (int j = 0; j < nknown; j++) kn[j] = known[1 + j];
            for (int j = 0; j < nknown; j++) aside[1 + na++] = kn[j];
            for (int i = 0; i < k; i++) aside[1 + na++] = pool[i];
            aside[0] = na;
            off = k;
        }
        if (has_hand) HAND(q) = pool[--np];
        sup[0] = np - off;
        memmove(sup + 1, pool + off, sizeof(int) * (np - off));
        DRAWN(q) = 0;
    }
    /* Mission cards: the others' secret cards and the rest of the deck are one pool. */
    int *cp = PyMem_Malloc(sizeof(int) * (tb->ncards + 1));
    int np = 0;
    for (int i = SC(S_NEXT_CARD); i < SC(S_DECK_LEN); i++) cp[np++] = DECK[i];
    for (int q = 0; q < n; q++) {
        if (q == seat) continue;
        int *held = tb->ireland ? TOWC(q) : CATHC(q);
        for (int i = 0; i < held[0]; i++) cp[np++] = held[1 + i];
    }
    mt_shuffle(r, cp, np);
    int off = 0;
    for (int q = 0; q < n; q++) {
        if (q == seat) continue;
        int *held = tb->ireland ? TOWC(q) : CATHC(q);
        for (int i = 0; i < held[0]; i++) held[1 + i] = cp[off++];
    }
    SC(S_DECK_LEN) = np - off;
    memcpy(DECK, cp + off, sizeof(int) * (np - off));
    SC(S_NEXT_CARD) = 0;
    PyMem_Free(cp);
    /* twin.rng = random.Random(rng.getrandbits(64)): the draw is made, the stream unused. */
    mt_next(r);
    mt_next(r);
}

/* ------------------------------------------------------------------ deal (Game.deal + State) */

/* Game.new_state(seed)'s deal and State.__init__ for a seed below 2**64. The tables hold
 * the tiles in play (S-1, S-2), the number set aside, the blockers (S-6). */
static int new_game(St *s, uint64_t seed) {
    const Tables *tb = T;
    int n = tb->n;
    MT r;
    mt_seed64(&r, seed);
    memset(A, 0, sizeof(int) * tb->size);
    int mine[LCAP_TILES];
    for (int p = 0; p < n; p++) {
        memcpy(mine, tb->tiles, sizeof(int) * tb->ntiles);
        mt_shuffle(&r, mine, tb->ntiles);
        int *a = ASIDE(p), *sup = SUPPLY(p);
        a[0] = tb->kset;
        memcpy(a + 1, mine, sizeof(int) * tb->kset);
        sup[0] = tb->ntiles - tb->kset;
        memcpy(sup + 1, mine + tb->kset, sizeof(int) * sup[0]);
    }
    int *ids = PyMem_Malloc(sizeof(int) * (tb->ncards + tb->ntok + 1));
    if (!ids) return -1;
    for (int i = 0; i < tb->ncards; i++) ids[i] = i;
    mt_shuffle(&r, ids, tb->ncards);
    int off = 0;
    SC(S_DISPLAY_LEN) = 0;
    if (tb->ireland) {
        int k = tb->ncards < 8 ? tb->ncards : 8;
        memcpy(DISPLAY, ids, sizeof(int) * k);
        SC(S_DISPLAY_LEN) = k;
        off = k;
        int *tok = ids; /* reused: the card ids are copied out first */
        memcpy(DECK, ids + off, sizeof(int) * (tb->ncards - off));
        for (int i = 0; i < tb->ntok; i++) tok[i] = i;
        mt_shuffle(&r, tok, tb->ntok);
        for (int i = 0; i < tb->nt; i++) TOKENS(i) = tok[i];
    } else {
        memcpy(DECK, ids, sizeof(int) * tb->ncards);
    }
    SC(S_DECK_LEN) = tb->ncards - off;
    PyMem_Free(ids);
    int start = mt_below(&r, n);
    /* State.__init__ */
    for (int h = 0; h < tb->ns; h++) {
        OWNER(h) = -1;
        TILE(h) = -1;
        PARENT[h] = h;
        GSIZE(h) = 1;
        int li = tb->list_of[h];
        FREE_AT(h) = FREELEN(li);
        FREE(li)[FREELEN(li)++] = h;
    }
    for (int d = 0; d < tb->nd; d++) LAST_PLACER(d) = -1;
    for (int c = 0; c < tb->nc; c++) HOLDER(c) = -1;
    for (int q = 0; q < n; q++) HAND(q) = -1;
    SC(S_EXTRA_TILE) = -1;
    SC(S_PHASE) = PH_PLACE;
    SC(S_CUR) = start;
    if (n == 2) {
        for (int i = 0; i < tb->nblockers; i++) {
            int h = tb->blockers[i], li = tb->list_of[h];
            int *lst = FREE(li), j = FREE_AT(h), last = lst[--FREELEN(li)];
            if (last != h) { lst[j] = last; FREE_AT(last) = j; }
            OWNER(h) = NEUTRAL;
            TILE(h) = -1;
        }
    }
    for (int p = 0; p < n; p++) draw_tile(s, p);
    return start_turn(s);
}

/* -------------------------------------------------------------- the mcts search */

typedef struct {
    int aid, first, next, visits, avail;
    double value, w[MAXP];
} Node;

typedef struct {
    Node *v;
    int len, cap;
} Tree;

static int tree_add(Tree *tr, int aid) {
    if (tr->len == tr->cap) {
        int cap = tr->cap ? 2 * tr->cap : 1024;
        Node *v = PyMem_Realloc(tr->v, sizeof(Node) * cap);
        if (!v) return -1;
        tr->v = v;
        tr->cap = cap;
    }
    Node *nd = &tr->v[tr->len];
    memset(nd, 0, sizeof(Node));
    nd->aid = aid;
    nd->first = nd->next = -1;
    return tr->len++;
}

static int tree_child(const Tree *tr, int node, int aid) {
    for (int c = tr->v[node].first; c >= 0; c = tr->v[c].next)
        if (tr->v[c].aid == aid) return c;
    return -1;
}

static int tree_count(const Tree *tr, int node) {
    int k = 0;
    for (int c = tr->v[node].first; c >= 0; c = tr->v[c].next) k++;
    return k;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------- Python objects */

typedef struct {
    PyObject_HEAD
    Tables *t;
    int *a;
} CState;

static PyTypeObject TablesType;
static PyTypeObject CStateType;

static void tables_dealloc(Tables *t) {
    PyMem_Free(t->mem);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

/* Reading the spec (built by rebirth.engine.native.tables_spec). */
typedef struct {
    PyObject *seq;
    Py_ssize_t i;
} Reader;

static int rd_int(Reader *r, int *out) {
    if (r->i >= PyList_GET_SIZE(r->seq)) {
        PyErr_SetString(PyExc_ValueError, "native core: short spec");
        return -1;
    }
    long v = PyLong_AsLong(PyList_GET_ITEM(r->seq, r->i));
    r->i++;
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < INT32_MIN / 2 || v > INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "native core: value out of range");
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* The spec is one flat list of ints: counts first, then each array (CSR arrays as their
 * offsets then their items). Every count and index is checked here, so a bad spec is a
 * ValueError, never a bad memory access. */
static PyObject *tables_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    PyObject *seq;
    if (!PyArg_ParseTuple(args, "O!", &PyList_Type, &seq)) return NULL;
    Tables *t = (Tables *)type->tp_alloc(type, 0);
    if (!t) return NULL;
    Reader r = {seq, 0};
    int head[21];
    for (int i = 0; i < 21; i++) if (rd_int(&r, &head[i])) goto fail;
    t->n = head[0]; t->ns = head[1]; t->nd = head[2]; t->nc = head[3]; t->nk = head[4];
    t->nt = head[5]; t->nr = head[6]; t->ncards = head[7]; t->ntok = head[8]; t->ireland = head[9];
    t->v_castle_tie = head[10]; t->v_incomplete_small = head[11]; t->v_medium_completer = head[12];
    t->v_stirling_literal = head[13]; t->own_set_aside = head[14]; t->set_aside_public = head[15];
    t->nblockers = head[16]; t->ntb = head[17]; t->ntiles = head[18]; t->kset = head[19];
    int total = head[20]; /* the number of ints that follow */
    if (t->n < 2 || t->n > MAXP || t->ns < 1 || t->ns > 100000 || t->nd < 0 || t->nc < 0 ||
        t->nk < 0 || t->nt < 0 || t->nr < 0 || t->ncards < 0 || t->ntok < 0 || t->nblockers < 0 ||
        t->ntb < 0 || t->ntiles < 0 || t->ntiles > TCAP || t->kset < 0 || t->kset > t->ntiles ||
        (t->ireland && t->ntok < t->nt) || total < 0 ||
        total != PyList_GET_SIZE(seq) - 21) {
        PyErr_SetString(PyExc_ValueError, "native core: bad spec counts");
        goto fail;
    }
    t->mem = PyMem_Malloc(sizeof(int) * (total + 1));
    if (!t->mem) { PyErr_NoMemory(); goto fail; }
    for (int i = 0; i < total; i++) if (rd_int(&r, &t->mem[i])) goto fail;
    {
        int *m = t->mem, pos = 0;
#define TAKE(f, k, lo, hi) do { \
        if ((k) < 0 || pos + (k) > total) goto bad; \
        t->f = m + pos; \
        for (int _i = 0; _i < (k); _i++) if (t->f[_i] < (lo) || t->f[_i] > (hi)) goto bad; \
        pos += (k); } while (0)
#define TAKE_CSR(fo, f, rows, hi) do { \
        TAKE(fo, (rows) + 1, 0, total); \
        if (t->fo[0] != 0) goto bad; \
        for (int _i = 0; _i < (rows); _i++) if (t->fo[_i + 1] < t->fo[_i]) goto bad; \
        TAKE(f, t->fo[rows], 0, (hi) - 1); } while (0)
        int ns = t->ns;
        TAKE(kind, ns, 0, 4);
        TAKE(list_of, ns, 0, 3);
        TAKE(district, ns, -1, t->nd - 1);
        TAKE(region, ns, 0, t->nr - 1);
        TAKE(port, ns, 0, 1);
        TAKE(offshore, ns, 0, 1);
        TAKE_CSR(nb_off, nb, ns, ns);
        TAKE_CSR(ac_off, ac, ns, t->nc);
        TAKE_CSR(ak_off, ak, ns, t->nk);
        TAKE_CSR(at_off, at, ns, t->nt);
        TAKE(dsize, t->nd, 1, 4);
        TAKE(blockers, t->nblockers, 0, ns - 1);
        TAKE(card_points, t->ncards, -1000000, 1000000);
        TAKE(card_v0, t->ncards, -1000000, 1000000);
        TAKE(card_v1, t->ncards, -1000000, 1000000);
        TAKE(cond_kind, t->ncards, -1, 5);
        TAKE(cond_a, t->ncards, -1000000, 1000000);
        TAKE(cond_b, t->ncards, -1000000, 1000000);
        TAKE(mtype, t->ncards, 0, 2);
        TAKE(minf, t->ncards, 0, 4);
        TAKE_CSR(ms_off, ms, t->ncards, ns);
        TAKE(tok_kind, t->ntok, 0, 3);
        TAKE(tok_points, t->ntok, -1000000, 1000000);
        TAKE(tb_kind, t->ntb, 0, 1);
        TAKE(tb_ix, t->ntb, 0, 1000000);
        TAKE_CSR(tw_off, tw, t->nt, ns);
        TAKE(tiles, t->ntiles, 0, 5);
        if (pos != total) goto bad;
        for (int i = 0; i < t->ntb; i++)
            if (t->tb_ix[i] >= (t->tb_kind[i] == 0 ? t->nc : t->nt)) goto bad;
        for (int h = 0; h < ns; h++) {
            /* A settlement space lies in a district; the free list follows the kind. */
            if (t->kind[h] == K_SETTLEMENT && t->district[h] < 0) goto bad;
            static const int list_of_kind[5] = {L_ENERGY, L_FOOD, L_EITHER, L_EITHER, L_SETTLE};
            if (t->list_of[h] != list_of_kind[t->kind[h]]) goto bad;
            /* More than 8 neighbours would overflow best_farm_spaces' root list. */
            if (t->nb_off[h + 1] - t->nb_off[h] > 8) goto bad;
        }
#undef TAKE
#undef TAKE_CSR
    }
    tables_layout(t);
    return (PyObject *)t;
bad:
    PyErr_SetString(PyExc_ValueError, "native core: bad spec");
fail:
    Py_DECREF(t);
    return NULL;
}

/* ------------------------------------------------------------ observations
 * rebirth.engine.observer.Observer.encode of one seat's view, written straight from the state
 * for the PettingZoo environment's steps (issue 28 item 4). The layout — each piece's offset
 * and the scales — is the Observer's (rebirth.engine.native.observation_layout, in OB_ order);
 * what each piece holds mirrors Observer.sparse over infoset.view: the public facts, and of the
 * hidden ones only the seat's own hand, its own missions and its own set-aside tiles when the
 * rules show them (infoset.Visibility). tests/core/test_native_observe.py compares every step
 * with the Python encoder. Every write is bounds-checked against the caller's buffer. */
enum { OB_SIZE, OB_BOARD, OB_SCORES, OB_BREAKDOWN, OB_CASTLES, OB_CATH, OB_TVIS, OB_TTOK,
       OB_HAND, OB_OWN_ASIDE, OB_OWN_ASIDE_VIS, OB_PUB_ASIDE, OB_OWN_MISSIONS, OB_DISPLAY,
       OB_FULFILLED, OB_MARKS, OB_SUPPLY, OB_HANDC, OB_ASIDEC, OB_MISSIONC, OB_PLACED,
       OB_DISCARDED, OB_DECK, OB_PHASE, OB_CUR, OB_EXTRA, OB_PENDING, OB_WINNERS,
       OB_KINDS, OB_TILES_PER_SEAT, OB_SET_ASIDE, OB_DECK_SIZE, OB_SCORE_SCALE, OB_PENDING_CAP,
       OB_NCAT, OB_CAT0, OB_N = OB_CAT0 + NCAT };

static PyObject *tables_set_observation(Tables *t, PyObject *seq) {
    if (!PyList_Check(seq) || PyList_GET_SIZE(seq) != OB_N) {
        PyErr_Format(PyExc_ValueError, "native core: an observation layout is %d ints", OB_N);
        return NULL;
    }
    int v[OB_N];
    Reader r = {seq, 0};
    for (int i = 0; i < OB_N; i++) if (rd_int(&r, &v[i])) return NULL;
    for (int i = 0; i < OB_N; i++) {
        if (v[i] < 0) { PyErr_SetString(PyExc_ValueError, "native core: bad observation layout"); return NULL; }
    }
    if (v[OB_SIZE] < 1 || v[OB_KINDS] < 1 || v[OB_TILES_PER_SEAT] < 1 || v[OB_SET_ASIDE] < 1 ||
        v[OB_DECK_SIZE] < 1 || v[OB_SCORE_SCALE] < 1 || v[OB_PENDING_CAP] < 1 || v[OB_NCAT] > NCAT) {
        PyErr_SetString(PyExc_ValueError, "native core: bad observation layout");
        return NULL;
    }
    for (int c = 0; c < v[OB_NCAT]; c++) {
        if (v[OB_CAT0 + c] >= NCAT) {
            PyErr_SetString(PyExc_ValueError, "native core: bad observation layout");
            return NULL;
        }
    }
    memcpy(t->obs, v, sizeof(int) * OB_N);
    Py_RETURN_NONE;
}

typedef char ob_fits[(OB_N <= 48) ? 1 : -1]; /* Tables.obs holds the layout */

static PyMethodDef tables_methods[] = {
    {"set_observation", (PyCFunction)tables_set_observation, METH_O,
     "the Observer's layout (rebirth.engine.native.observation_layout)"},
    {NULL},
};

static PyTypeObject TablesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "rebirth._core.Tables",
    .tp_basicsize = sizeof(Tables),
    .tp_dealloc = (destructor)tables_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A game's board, cards and rules as flat arrays (rebirth.engine.native builds it).",
    .tp_methods = tables_methods,
    .tp_new = tables_new,
};

static CState *cstate_alloc(Tables *t) {
    CState *c = PyObject_New(CState, &CStateType);
    if (!c) return NULL;
    c->a = PyMem_Malloc(sizeof(int) * t->size);
    if (!c->a) {
        c->t = NULL;
        Py_DECREF(c);
        PyErr_NoMemory();
        return NULL;
    }
    Py_INCREF(t);
    c->t = t;
    return c;
}

static void cstate_dealloc(CState *c) {
    PyMem_Free(c->a);
    Py_XDECREF(c->t);
    PyObject_Free(c);
}

static CState *cstate_copy(CState *src) {
    CState *c = cstate_alloc(src->t);
    if (!c) return NULL;
    memcpy(c->a, src->a, sizeof(int) * src->t->size);
    return c;
}

/* Reading a packed state (rebirth.engine.native.pack): checked like the spec. */
static int rd_range(Reader *r, int *out, int lo, int hi) {
    if (rd_int(r, out)) return -1;
    if (*out < lo || *out > hi) {
        PyErr_Format(PyExc_ValueError, "native core: packed value %d out of [%d, %d] at %zd",
                     *out, lo, hi, r->i - 1);
        return -1;
    }
    return 0;
}

static int rd_array(Reader *r, int *dst, int k, int lo, int hi) {
    for (int i = 0; i < k; i++) if (rd_range(r, &dst[i], lo, hi)) return -1;
    return 0;
}

static int rd_list(Reader *r, int *dst, int cap, int lo, int hi) { /* dst[0] = len */
    if (rd_range(r, &dst[0], 0, cap)) return -1;
    return rd_array(r, dst + 1, dst[0], lo, hi);
}

static int unpack(St *s, PyObject *seq) {
    const Tables *t = T;
    Reader r = {seq, 0};
    int n = t->n, ns = t->ns, BIG = 1 << 28;
    memset(A, 0, sizeof(int) * t->size);
    if (rd_range(&r, &SC(S_PHASE), 0, 4) || rd_range(&r, &SC(S_CUR), -1, n - 1) ||
        rd_range(&r, &SC(S_TURN), 0, BIG) || rd_range(&r, &SC(S_DONE), 0, 1) ||
        rd_range(&r, &SC(S_PEXTRA), 0, 64) || rd_range(&r, &SC(S_PDOUBLE), 0, 64) ||
        rd_range(&r, &SC(S_EXTRA_TILE), -1, 5) || rd_range(&r, &SC(S_NEXT_CARD), 0, t->ncards))
        return -1;
    if (rd_array(&r, A + t->o_score, n, -BIG, BIG) || rd_array(&r, A + t->o_cat, NCAT * n, -BIG, BIG) ||
        rd_array(&r, A + t->o_owner, ns, -1, NEUTRAL) || rd_array(&r, A + t->o_tile, ns, -1, 5) ||
        rd_array(&r, A + t->o_parent, ns, 0, ns - 1) || rd_array(&r, A + t->o_gsize, ns, 1, ns))
        return -1;
    for (int k = 0; k < 4; k++) {
        if (rd_range(&r, &FREELEN(k), 0, ns) || rd_array(&r, FREE(k), FREELEN(k), 0, ns - 1)) return -1;
        for (int i = 0; i < FREELEN(k); i++)
            if (t->list_of[FREE(k)[i]] != k) {
                PyErr_SetString(PyExc_ValueError, "native core: a free space in the wrong list");
                return -1;
            }
    }
    if (rd_array(&r, A + t->o_free_at, ns, 0, ns - 1)) return -1;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < FREELEN(k); i++)
            if (FREE_AT(FREE(k)[i]) != i) {
                PyErr_SetString(PyExc_ValueError, "native core: free lists and positions disagree");
                return -1;
            }
    if (SC(S_CUR) < 0 && !SC(S_DONE)) {
        PyErr_SetString(PyExc_ValueError, "native core: no seat to act");
        return -1;
    }
    if (rd_array(&r, A + t->o_region_tiles, t->nr * n, 0, BIG) || rd_array(&r, A + t->o_largest, n, 0, BIG) ||
        rd_array(&r, A + t->o_offshore, n, 0, BIG) || rd_array(&r, A + t->o_placed, n, 0, BIG) ||
        rd_array(&r, A + t->o_filled, t->nd, 0, BIG) || rd_array(&r, A + t->o_last_placer, t->nd, -1, n - 1) ||
        rd_array(&r, A + t->o_influence, t->nd * n, 0, BIG) || rd_array(&r, A + t->o_first_ranks, n, 0, BIG) ||
        rd_array(&r, A + t->o_cadj, t->nc * n, 0, BIG) || rd_array(&r, A + t->o_cadjf, t->nc * n, 0, BIG) ||
        rd_array(&r, A + t->o_holder, t->nc, -1, n - 1) || rd_array(&r, A + t->o_held, n, 0, BIG) ||
        rd_array(&r, A + t->o_cath, t->nk, 0, (1 << n) - 1) || rd_array(&r, A + t->o_tvis, t->nt, 0, (1 << n) - 1) ||
        rd_array(&r, A + t->o_tvisited, n, 0, BIG))
        return -1;
    if (rd_range(&r, &SC(S_DECK_LEN), 0, t->ncards) || rd_array(&r, DECK, SC(S_DECK_LEN), 0, t->ncards - 1) ||
        rd_range(&r, &SC(S_DISPLAY_LEN), 0, t->ncards) || rd_array(&r, DISPLAY, SC(S_DISPLAY_LEN), 0, t->ncards - 1))
        return -1;
    if (SC(S_NEXT_CARD) > SC(S_DECK_LEN)) {
        PyErr_SetString(PyExc_ValueError, "native core: next card beyond the deck");
        return -1;
    }
    for (int q = 0; q < n; q++) if (rd_list(&r, CATHC(q), t->ncards, 0, t->ncards - 1)) return -1;
    for (int q = 0; q < n; q++) if (rd_list(&r, TOWC(q), t->ncards, 0, t->ncards - 1)) return -1;
    if (rd_array(&r, A + t->o_fulfilled, t->ncards, 0, (1 << n) - 1) ||
        rd_array(&r, A + t->o_first_paid, t->ncards, 0, 1))
        return -1;
    for (int q = 0; q < n; q++) if (rd_list(&r, MARKS(q), t->ncards, 0, t->ncards - 1)) return -1;
    for (int q = 0; q < n; q++) if (rd_list(&r, SUPPLY(q), TCAP, 0, 5)) return -1;
    if (rd_array(&r, A + t->o_drawn, n, 0, TCAP) || rd_array(&r, A + t->o_hand, n, -1, 5)) return -1;
    for (int q = 0; q < n; q++) {
        if (DRAWN(q) > SUPPLY(q)[0]) {
            PyErr_SetString(PyExc_ValueError, "native core: drawn beyond the supply");
            return -1;
        }
        if (rd_list(&r, ASIDE(q), TCAP, 0, 5) || rd_list(&r, KNOWN(q), TCAP, 0, 5) ||
            rd_list(&r, DISCARDED(q), TCAP, 0, 5))
            return -1;
    }
    if (rd_array(&r, A + t->o_tokens, t->nt, 0, t->ntok ? t->ntok - 1 : 0)) return -1;
    if (t->nt && !t->ntok) {
        PyErr_SetString(PyExc_ValueError, "native core: towers without tokens");
        return -1;
    }
    if (rd_list(&r, WINNERS, n, 0, n - 1)) return -1;
    if (r.i != PyList_GET_SIZE(seq)) {
        PyErr_SetString(PyExc_ValueError, "native core: packed state too long");
        return -1;
    }
    /* What the hot path relies on beyond the ranges: the tile on a seat's space, a seat's
     * known set-aside tiles among its set-aside ones, and room for a marker per card. */
    for (int h = 0; h < ns; h++) {
        int o = OWNER(h);
        if ((o >= 0 && o < n) != (TILE(h) >= 0) || (o == -1 && FREE(t->list_of[h])[FREE_AT(h)] != h)) {
            PyErr_SetString(PyExc_ValueError, "native core: owner and tile disagree");
            return -1;
        }
    }
    for (int q = 0; q < n; q++) {
        int fd[LCAP_TILES];
        if (KNOWN(q)[0] > ASIDE(q)[0] || face_down(s, q, fd) != ASIDE(q)[0] - KNOWN(q)[0]) {
            PyErr_SetString(PyExc_ValueError, "native core: known set-aside tiles not set aside");
            return -1;
        }
        int cards = CATHC(q)[0] + TOWC(q)[0];
        if (cards > t->ncards) {
            PyErr_SetString(PyExc_ValueError, "native core: more secret cards than cards");
            return -1;
        }
    }
    for (int q = 0; q < n; q++) {
        /* Room for every card still in the deck in each seat's lists (capacity: the cards). */
        if (CATHC(q)[0] + TOWC(q)[0] + SC(S_DECK_LEN) - SC(S_NEXT_CARD) > t->ncards) {
            PyErr_SetString(PyExc_ValueError, "native core: more cards than the game has");
            return -1;
        }
    }
    /* The farm groups: every walk up the forest ends at a root within ns steps. */
    for (int h = 0; h < ns; h++) {
        int x = h, k = 0;
        while (PARENT[x] != x && k <= ns) { x = PARENT[x]; k++; }
        if (k > ns) {
            PyErr_SetString(PyExc_ValueError, "native core: a cycle in the farm groups");
            return -1;
        }
    }
    int ph = SC(S_PHASE);
    if (!SC(S_DONE)) {
        int p = SC(S_CUR), fd[LCAP_TILES], ok = 1;
        if (ph == PH_PLACE) ok = HAND(p) >= 0 && has_space_for(s, HAND(p));
        else if (ph == PH_EXTRA) ok = SC(S_EXTRA_TILE) >= 0 && has_space_for(s, SC(S_EXTRA_TILE));
        else if (ph == PH_MARK) ok = mark_options(s, p, NULL) > 0;
        else if (ph == PH_CHANCE) ok = face_down(s, p, fd) > 0;
        else ok = 0;
        if (!ok) {
            PyErr_SetString(PyExc_ValueError, "native core: the seat to act has nothing to do");
            return -1;
        }
    }
    return 0;
}

static int put_ints(PyObject *out, const int *v, int k) {
    for (int i = 0; i < k; i++) {
        PyObject *x = PyLong_FromLong(v[i]);
        if (!x || PyList_Append(out, x)) { Py_XDECREF(x); return -1; }
        Py_DECREF(x);
    }
    return 0;
}

static PyObject *pack(St *s) {
    const Tables *t = T;
    int n = t->n, ns = t->ns;
    PyObject *o = PyList_New(0);
    if (!o) return NULL;
    int sc[8] = {SC(S_PHASE), SC(S_CUR), SC(S_TURN), SC(S_DONE), SC(S_PEXTRA), SC(S_PDOUBLE),
                 SC(S_EXTRA_TILE), SC(S_NEXT_CARD)};
#define P(v, k) if (put_ints(o, (v), (k))) goto fail
#define PL(v) P((v), (v)[0] + 1)
    P(sc, 8);
    P(A + t->o_score, n); P(A + t->o_cat, NCAT * n);
    P(A + t->o_owner, ns); P(A + t->o_tile, ns); P(A + t->o_parent, ns); P(A + t->o_gsize, ns);
    for (int k = 0; k < 4; k++) { P(&FREELEN(k), 1); P(FREE(k), FREELEN(k)); }
    P(A + t->o_free_at, ns);
    P(A + t->o_region_tiles, t->nr * n); P(A + t->o_largest, n); P(A + t->o_offshore, n);
    P(A + t->o_placed, n); P(A + t->o_filled, t->nd); P(A + t->o_last_placer, t->nd);
    P(A + t->o_influence, t->nd * n); P(A + t->o_first_ranks, n);
    P(A + t->o_cadj, t->nc * n); P(A + t->o_cadjf, t->nc * n); P(A + t->o_holder, t->nc);
    P(A + t->o_held, n); P(A + t->o_cath, t->nk); P(A + t->o_tvis, t->nt); P(A + t->o_tvisited, n);
    P(&SC(S_DECK_LEN), 1); P(DECK, SC(S_DECK_LEN));
    P(&SC(S_DISPLAY_LEN), 1); P(DISPLAY, SC(S_DISPLAY_LEN));
    for (int q = 0; q < n; q++) PL(CATHC(q));
    for (int q = 0; q < n; q++) PL(TOWC(q));
    P(A + t->o_fulfilled, t->ncards); P(A + t->o_first_paid, t->ncards);
    for (int q = 0; q < n; q++) PL(MARKS(q));
    for (int q = 0; q < n; q++) PL(SUPPLY(q));
    P(A + t->o_drawn, n); P(A + t->o_hand, n);
    for (int q = 0; q < n; q++) { PL(ASIDE(q)); PL(KNOWN(q)); PL(DISCARDED(q)); }
    P(A + t->o_tokens, t->nt);
    PL(WINNERS);
#undef P
#undef PL
    return o;
fail:
    Py_DECREF(o);
    return NULL;
}

#define ST(c) St s_ = {(c)->t, (c)->a}; St *s = &s_

static PyObject *cstate_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    PyObject *tables, *seq;
    if (!PyArg_ParseTuple(args, "O!O!", &TablesType, &tables, &PyList_Type, &seq)) return NULL;
    CState *c = cstate_alloc((Tables *)tables);
    if (!c) return NULL;
    ST(c);
    if (unpack(s, seq)) { Py_DECREF(c); return NULL; }
    return (PyObject *)c;
}

static PyObject *rules_error(void) {
    PyErr_SetString(PyExc_RuntimeError, "no player can act");
    return NULL;
}

static PyObject *cs_pack(CState *c, PyObject *noarg) { ST(c); return pack(s); }
static PyObject *cs_clone(CState *c, PyObject *noarg) { return (PyObject *)cstate_copy(c); }

static PyObject *ints_list(const int *v, int k) {
    PyObject *o = PyList_New(k);
    if (!o) return NULL;
    for (int i = 0; i < k; i++) {
        PyObject *x = PyLong_FromLong(v[i]);
        if (!x) { Py_DECREF(o); return NULL; }
        PyList_SET_ITEM(o, i, x);
    }
    return o;
}

static int *legal_buf(const Tables *t) { return PyMem_Malloc(sizeof(int) * (t->ns + t->ncards + 8)); }

static PyObject *cs_legal(CState *c, PyObject *noarg) {
    ST(c);
    int *buf = legal_buf(c->t);
    if (!buf) return PyErr_NoMemory();
    int k = legal_ids(s, buf);
    PyObject *o = ints_list(buf, k);
    PyMem_Free(buf);
    return o;
}

/* The id must be legal: checked against the legal set (the native code never trusts it). */
static int is_legal(St *s, int aid) {
    int *buf = legal_buf(T);
    if (!buf) return 0;
    int k = legal_ids(s, buf), ok = 0;
    for (int i = 0; i < k; i++) if (buf[i] == aid) { ok = 1; break; }
    PyMem_Free(buf);
    return ok;
}

static PyObject *cs_apply(CState *c, PyObject *arg) {
    ST(c);
    long aid = PyLong_AsLong(arg);
    if (aid == -1 && PyErr_Occurred()) return NULL;
    if (aid < INT32_MIN || aid > INT32_MAX || !is_legal(s, (int)aid)) {
        PyErr_Format(PyExc_ValueError, "native core: action %ld is not legal here", aid);
        return NULL;
    }
    if (apply_id(s, (int)aid)) return rules_error();
    Py_RETURN_NONE;
}

static PyObject *cs_random_action(CState *c, PyObject *rng) {
    ST(c);
    if (SC(S_DONE)) { PyErr_SetString(PyExc_ValueError, "the game is over"); return NULL; }
    MT r;
    if (mt_from_py(&r, rng)) return NULL;
    int a = random_action_id(s, &r);
    if (mt_to_py(&r, rng)) return NULL;
    return PyLong_FromLong(a);
}

static PyObject *cs_fast_policy(CState *c, PyObject *args) {
    PyObject *rng;
    double eps;
    if (!PyArg_ParseTuple(args, "Od", &rng, &eps)) return NULL;
    ST(c);
    if (SC(S_DONE)) { PyErr_SetString(PyExc_ValueError, "the game is over"); return NULL; }
    MT r;
    if (mt_from_py(&r, rng)) return NULL;
    int *buf = legal_buf(c->t), *buf2 = legal_buf(c->t);
    int a = (buf && buf2) ? fast_policy(s, &r, eps, buf, buf2) : -1;
    PyMem_Free(buf);
    PyMem_Free(buf2);
    if (a < 0) return PyErr_NoMemory();
    if (mt_to_py(&r, rng)) return NULL;
    return PyLong_FromLong(a);
}

/* Play on (in place) by uniformly random moves (policy 0) or fast_policy (1) for at most
 * `plies` steps (-1: to the end); returns the steps played. */
static int playout(St *s, MT *r, int policy, double eps, int plies, int *buf, int *buf2) {
    int k = 0;
    while (!SC(S_DONE) && (plies < 0 || k < plies)) {
        int a = policy ? fast_policy(s, r, eps, buf, buf2) : random_action_id(s, r);
        if (apply_id(s, a)) return -1;
        k++;
    }
    return k;
}

static PyObject *cs_playout(CState *c, PyObject *args) {
    PyObject *rng;
    int policy, plies;
    double eps;
    if (!PyArg_ParseTuple(args, "Oidi", &rng, &policy, &eps, &plies)) return NULL;
    ST(c);
    MT r;
    if (mt_from_py(&r, rng)) return NULL;
    int *buf = legal_buf(c->t), *buf2 = legal_buf(c->t);
    if (!buf || !buf2) { PyMem_Free(buf); PyMem_Free(buf2); return PyErr_NoMemory(); }
    int k = playout(s, &r, policy, eps, plies, buf, buf2);
    PyMem_Free(buf);
    PyMem_Free(buf2);
    if (k < 0) return rules_error();
    if (mt_to_py(&r, rng)) return NULL;
    return PyLong_FromLong(k);
}

/* For the differential test: play on by `policy` (0 random, 1 fast_policy(eps)) to the end,
 * recording before each step the legal ids and the id chosen, after it the scores, the seat
 * and the phase, and with `full` the whole packed state. */
static PyObject *cs_trace(CState *c, PyObject *args) {
    PyObject *rng;
    int policy, full;
    double eps;
    if (!PyArg_ParseTuple(args, "Oidp", &rng, &policy, &eps, &full)) return NULL;
    ST(c);
    MT r;
    if (mt_from_py(&r, rng)) return NULL;
    int *buf = legal_buf(c->t), *buf2 = legal_buf(c->t), *lg = legal_buf(c->t);
    PyObject *out = PyList_New(0);
    if (!buf || !buf2 || !lg || !out) { PyErr_NoMemory(); goto fail; }
    while (!SC(S_DONE)) {
        int k = legal_ids(s, lg);
        int a = policy ? fast_policy(s, &r, eps, buf, buf2) : random_action_id(s, &r);
        if (apply_id(s, a)) { rules_error(); goto fail; }
        PyObject *legal = ints_list(lg, k), *score = ints_list(A + c->t->o_score, c->t->n);
        PyObject *packed = full ? pack(s) : (Py_INCREF(Py_None), Py_None);
        if (!legal || !score || !packed) { Py_XDECREF(legal); Py_XDECREF(score); Py_XDECREF(packed); goto fail; }
        PyObject *item = Py_BuildValue("(NiNiiN)", legal, a, score, SC(S_CUR), SC(S_PHASE), packed);
        if (!item || PyList_Append(out, item)) { Py_XDECREF(item); goto fail; }
        Py_DECREF(item);
    }
    PyMem_Free(buf); PyMem_Free(buf2); PyMem_Free(lg);
    if (mt_to_py(&r, rng)) { Py_DECREF(out); return NULL; }
    return out;
fail:
    PyMem_Free(buf); PyMem_Free(buf2); PyMem_Free(lg);
    Py_XDECREF(out);
    return NULL;
}

static int read_weights(PyObject *wt, double *w) {
    if (!PyTuple_Check(wt) || PyTuple_GET_SIZE(wt) != 5) {
        PyErr_SetString(PyExc_TypeError, "weights: a tuple of 5 floats");
        return -1;
    }
    for (int i = 0; i < 5; i++) {
        w[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(wt, i));
        if (w[i] == -1.0 && PyErr_Occurred()) return -1;
    }
    return 0;
}

static PyObject *floats_list(const double *v, int k) {
    PyObject *o = PyList_New(k);
    if (!o) return NULL;
    for (int i = 0; i < k; i++) {
        PyObject *x = PyFloat_FromDouble(v[i]);
        if (!x) { Py_DECREF(o); return NULL; }
        PyList_SET_ITEM(o, i, x);
    }
    return o;
}

static PyObject *cs_projected(CState *c, PyObject *wt) {
    double w[5], val[MAXP];
    if (read_weights(wt, w)) return NULL;
    ST(c);
    int *scratch = PyMem_Malloc(sizeof(int) * 4 * c->t->ns);
    if (!scratch) return PyErr_NoMemory();
    projected(s, w, val, scratch);
    PyMem_Free(scratch);
    return floats_list(val, c->t->n);
}

/* heuristic.score_actions: (own projected value - 0.5 * best rival's, aid) per legal id. */
static PyObject *cs_score_actions(CState *c, PyObject *args) {
    int seat;
    PyObject *wt;
    double w[5], val[MAXP];
    if (!PyArg_ParseTuple(args, "iO", &seat, &wt) || read_weights(wt, w)) return NULL;
    if (seat < 0 || seat >= c->t->n) { PyErr_SetString(PyExc_ValueError, "bad seat"); return NULL; }
    ST(c);
    const Tables *t = c->t;
    int *buf = legal_buf(t), *scratch = PyMem_Malloc(sizeof(int) * 4 * t->ns);
    int *child = PyMem_Malloc(sizeof(int) * t->size);
    PyObject *out = NULL;
    if (!buf || !scratch || !child) { PyErr_NoMemory(); goto done; }
    int k = legal_ids(s, buf);
    out = PyList_New(k);
    if (!out) goto done;
    for (int i = 0; i < k; i++) {
        memcpy(child, c->a, sizeof(int) * t->size);
        St cs = {t, child};
        if (apply_id(&cs, buf[i])) { Py_CLEAR(out); rules_error(); goto done; }
        projected(&cs, w, val, scratch);
        double rival = -INFINITY;
        for (int q = 0; q < t->n; q++) if (q != seat && val[q] > rival) rival = val[q];
        PyObject *item = Py_BuildValue("(di)", val[seat] - 0.5 * rival, buf[i]);
        if (!item) { Py_CLEAR(out); goto done; }
        PyList_SET_ITEM(out, i, item);
    }
done:
    PyMem_Free(buf);
    PyMem_Free(scratch);
    PyMem_Free(child);
    return out;
}

static PyObject *cs_resample(CState *c, PyObject *args) {
    int seat;
    PyObject *rng;
    if (!PyArg_ParseTuple(args, "iO", &seat, &rng)) return NULL;
    if (seat < 0 || seat >= c->t->n) { PyErr_SetString(PyExc_ValueError, "bad seat"); return NULL; }
    MT r;
    if (mt_from_py(&r, rng)) return NULL;
    CState *twin = cstate_copy(c);
    if (!twin) return NULL;
    ST(twin);
    resample(s, seat, &r);
    if (mt_to_py(&r, rng)) { Py_DECREF(twin); return NULL; }
    return (PyObject *)twin;
}

/* [resample(seat, rng) for _ in range(count)] with one transfer of the generator's state. */
static PyObject *cs_resample_many(CState *c, PyObject *args) {
    int seat, count;
    PyObject *rng;
    if (!PyArg_ParseTuple(args, "iOi", &seat, &rng, &count)) return NULL;
    if (seat < 0 || seat >= c->t->n || count < 0) { PyErr_SetString(PyExc_ValueError, "bad seat or count"); return NULL; }
    MT r;
    if (mt_from_py(&r, rng)) return NULL;
    PyObject *out = PyList_New(count);
    if (!out) return NULL;
    for (int i = 0; i < count; i++) {
        CState *twin = cstate_copy(c);
        if (!twin) { Py_DECREF(out); return NULL; }
        St s_ = {twin->t, twin->a};
        resample(&s_, seat, &r);
        PyList_SET_ITEM(out, i, (PyObject *)twin);
    }
    if (mt_to_py(&r, rng)) { Py_DECREF(out); return NULL; }
    return out;
}

/* The outcome of a finished game for `seat` (analysis/estimate.py final_outcome): its
 * return, its score over the board's categories minus the best rival's, and its score. */
static void final_outcome(St *s, int seat, double *out) {
    const Tables *t = T;
    int n = t->n, sc[MAXP];
    for (int q = 0; q < n; q++) {
        sc[q] = 0;
        for (int c = 0; c < NCAT; c++) {
            if (t->ireland ? c == C_PORTS : c > C_MISSIONS) continue;
            sc[q] += CAT(c, q);
        }
    }
    int rival = INT32_MIN;
    for (int q = 0; q < n; q++) if (q != seat && sc[q] > rival) rival = sc[q];
    int *w = WINNERS, win = 0;
    for (int i = 0; i < w[0]; i++) if (w[1 + i] == seat) win = 1;
    out[0] = win ? 1.0 / w[0] : 0.0;
    out[1] = (double)(sc[seat] - rival);
    out[2] = (double)sc[seat];
}

/* Worlds.outcomes: per world (state, seed), apply aid (-1: nothing) to a copy and play it
 * out by fast_policy from random.Random(seed); (win, margin, score) per world. */
static PyObject *mod_outcomes(PyObject *self, PyObject *args) {
    PyObject *states, *seeds;
    int aid, seat;
    if (!PyArg_ParseTuple(args, "O!O!ii", &PyList_Type, &states, &PyList_Type, &seeds, &aid, &seat))
        return NULL;
    Py_ssize_t k = PyList_GET_SIZE(states);
    if (PyList_GET_SIZE(seeds) != k) { PyErr_SetString(PyExc_ValueError, "states and seeds"); return NULL; }
    PyObject *out = PyList_New(k);
    if (!out) return NULL;
    int *buf = NULL, *buf2 = NULL, *child = NULL;
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *o = PyList_GET_ITEM(states, i);
        if (!PyObject_TypeCheck(o, &CStateType)) { PyErr_SetString(PyExc_TypeError, "a CState"); goto fail; }
        CState *c = (CState *)o;
        const Tables *t = c->t;
        if (seat < 0 || seat >= t->n) { PyErr_SetString(PyExc_ValueError, "bad seat"); goto fail; }
        PyMem_Free(buf); PyMem_Free(buf2); PyMem_Free(child);
        buf = legal_buf(t); buf2 = legal_buf(t); child = PyMem_Malloc(sizeof(int) * t->size);
        if (!buf || !buf2 || !child) { PyErr_NoMemory(); goto fail; }
        memcpy(child, c->a, sizeof(int) * t->size);
        St cs = {t, child};
        if (aid >= 0) {
            if (!is_legal(&cs, aid)) { PyErr_SetString(PyExc_ValueError, "not legal"); goto fail; }
            if (apply_id(&cs, aid)) { rules_error(); goto fail; }
        }
        unsigned long long seed = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(seeds, i));
        if (seed == (unsigned long long)-1 && PyErr_Occurred()) goto fail;
        MT r;
        mt_seed64(&r, seed);
        if (playout(&cs, &r, 1, 0.1, -1, buf, buf2) < 0) { rules_error(); goto fail; }
        double res[3];
        final_outcome(&cs, seat, res);
        PyObject *item = Py_BuildValue("(ddd)", res[0], res[1], res[2]);
        if (!item) goto fail;
        PyList_SET_ITEM(out, i, item);
    }
    PyMem_Free(buf); PyMem_Free(buf2); PyMem_Free(child);
    return out;
fail:
    PyMem_Free(buf); PyMem_Free(buf2); PyMem_Free(child);
    Py_DECREF(out);
    return NULL;
}

/* MCTSBot.analyse's loop (bots/mcts.py), from this determinization `base`. leaf: None for
 * the heuristic reward, or a callable(CState) -> (vals, reward) (the expert's). Returns
 * (iterations, [(visits, w[seat], value) per root move]). */
static PyObject *cs_mcts(CState *base, PyObject *args) {
    int seat, iterations, plies;
    PyObject *rng, *roots, *wt, *leaf;
    double seconds, cexp, temp, w[5];
    if (!PyArg_ParseTuple(args, "iOO!iddidOO", &seat, &rng, &PyList_Type, &roots, &iterations,
                          &seconds, &cexp, &plies, &temp, &wt, &leaf))
        return NULL;
    if (read_weights(wt, w)) return NULL;
    const Tables *t = base->t;
    int n = t->n;
    if (seat < 0 || seat >= n) { PyErr_SetString(PyExc_ValueError, "bad seat"); return NULL; }
    int nroot = (int)PyList_GET_SIZE(roots);
    int *root_moves = PyMem_Malloc(sizeof(int) * (nroot + 1));
    int *legal = legal_buf(t), *untried = legal_buf(t), *buf = legal_buf(t), *buf2 = legal_buf(t);
    int *scratch = PyMem_Malloc(sizeof(int) * 4 * t->ns);
    int *path = NULL, *movers = NULL, pathcap = 0;
    Tree tr = {NULL, 0, 0};
    CState *st = NULL;
    PyObject *result = NULL;
    MT r;
    if (!root_moves || !legal || !untried || !buf || !buf2 || !scratch) { PyErr_NoMemory(); goto done; }
    {
        ST(base);
        for (int i = 0; i < nroot; i++) {
            long v = PyLong_AsLong(PyList_GET_ITEM(roots, i));
            if (v == -1 && PyErr_Occurred()) goto done;
            if (v < INT32_MIN || v > INT32_MAX || !is_legal(s, (int)v)) {
                PyErr_SetString(PyExc_ValueError, "a root move that is not legal");
                goto done;
            }
            root_moves[i] = (int)v;
        }
    }
    if (mt_from_py(&r, rng)) goto done;
    if (tree_add(&tr, -1) < 0) { PyErr_NoMemory(); goto done; }
    double deadline = seconds > 0 ? now_s() + seconds : 0.0;
    int it = 0;
    while (1) {
        if (iterations >= 0 && it >= iterations) break;
        if (seconds > 0 && now_s() >= deadline) break;
        it++;
        Py_XDECREF(st);
        st = cstate_copy(base);
        if (!st) goto done;
        St s_ = {t, st->a};
        St *s = &s_;
        resample(s, seat, &r);
        int node = 0, plen = 0;
#define PUSH(nd, mv) do { \
        if (plen == pathcap) { \
            pathcap = pathcap ? 2 * pathcap : 256; \
            int *np_ = PyMem_Realloc(path, sizeof(int) * pathcap); \
            if (!np_) { PyErr_NoMemory(); goto done; } \
            path = np_; \
            np_ = PyMem_Realloc(movers, sizeof(int) * pathcap); \
            if (!np_) { PyErr_NoMemory(); goto done; } \
            movers = np_; } \
        path[plen] = (nd); movers[plen] = (mv); plen++; } while (0)
        PUSH(0, -1);
        while (!SC(S_DONE)) {
            if (SC(S_PHASE) == PH_CHANCE) {
                if (apply_id(s, sample_chance(s, &r))) { rules_error(); goto done; }
                continue;
            }
            int p = SC(S_CUR), nl;
            if (node == 0) { memcpy(legal, root_moves, sizeof(int) * nroot); nl = nroot; }
            else nl = legal_ids(s, legal);
            int nu = 0;
            for (int i = 0; i < nl; i++) if (tree_child(&tr, node, legal[i]) < 0) untried[nu++] = legal[i];
            if (nu && (node == 0 || tree_count(&tr, node) < 1 + (int)sqrt((double)tr.v[node].visits))) {
                int aid = node == 0 ? untried[0] : fast_policy(s, &r, 0.0, buf, buf2);
                if (tree_child(&tr, node, aid) >= 0) aid = untried[(int)(mt_random(&r) * nu)];
                int child = tree_add(&tr, aid);
                if (child < 0) { PyErr_NoMemory(); goto done; }
                /* kids[aid] = child: appended, the dict's insertion order */
                if (tr.v[node].first < 0) tr.v[node].first = child;
                else {
                    int c = tr.v[node].first;
                    while (tr.v[c].next >= 0) c = tr.v[c].next;
                    tr.v[c].next = child;
                }
                for (int i = 0; i < nl; i++) {
                    int ch = tree_child(&tr, node, legal[i]);
                    if (ch >= 0) tr.v[ch].avail += 1;
                }
                if (apply_id(s, aid)) { rules_error(); goto done; }
                PUSH(child, p);
                break;
            }
            double best_u = -1.0;
            int best_a = -1, best_ch = -1;
            for (int i = 0; i < nl; i++) {
                int ch = tree_child(&tr, node, legal[i]);
                if (ch < 0) continue;
                Node *nd = &tr.v[ch];
                nd->avail += 1;
                double u = nd->w[p] / nd->visits + cexp * sqrt(log((double)nd->avail) / nd->visits);
                if (u > best_u) { best_u = u; best_a = legal[i]; best_ch = ch; }
            }
            if (best_a < 0) break;
            if (apply_id(s, best_a)) { rules_error(); goto done; }
            node = best_ch;
            PUSH(node, p);
        }
#undef PUSH
        if (playout(s, &r, 1, 0.1, plies, buf, buf2) < 0) { rules_error(); goto done; }
        double vals[MAXP], reward[MAXP];
        if (leaf == Py_None) {
            projected(s, w, vals, scratch);
            for (int q = 0; q < n; q++) {
                double rival = -INFINITY;
                for (int o = 0; o < n; o++) if (o != q && vals[o] > rival) rival = vals[o];
                double x = (vals[q] - rival) / temp;
                x = x < 30.0 ? x : 30.0;
                x = x > -30.0 ? x : -30.0;
                reward[q] = 1.0 / (1.0 + exp(-x));
            }
        } else {
            /* The caller's leaf sees the state: the generator's state goes back first. */
            if (mt_to_py(&r, rng)) goto done;
            PyObject *res = PyObject_CallOneArg(leaf, (PyObject *)st);
            if (!res) goto done;
            PyObject *vl = NULL, *rl = NULL;
            if (!PyArg_ParseTuple(res, "OO", &vl, &rl) || !PySequence_Check(vl) || !PySequence_Check(rl) ||
                PySequence_Size(vl) != n || PySequence_Size(rl) != n) {
                Py_DECREF(res);
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "leaf: (vals, reward)");
                goto done;
            }
            for (int q = 0; q < n; q++) {
                PyObject *a = PySequence_GetItem(vl, q), *b = PySequence_GetItem(rl, q);
                vals[q] = a ? PyFloat_AsDouble(a) : -1.0;
                reward[q] = b ? PyFloat_AsDouble(b) : -1.0;
                Py_XDECREF(a);
                Py_XDECREF(b);
            }
            Py_DECREF(res);
            if (PyErr_Occurred()) goto done;
            if (mt_from_py(&r, rng)) goto done;
        }
        for (int i = 0; i < plen; i++) {
            Node *nd = &tr.v[path[i]];
            nd->visits += 1;
            nd->value += vals[seat];
            if (movers[i] >= 0) nd->w[movers[i]] += reward[movers[i]];
            else for (int q = 0; q < n; q++) nd->w[q] += reward[q];
        }
    }
    if (mt_to_py(&r, rng)) goto done;
    {
        PyObject *lst = PyList_New(nroot);
        if (!lst) goto done;
        for (int i = 0; i < nroot; i++) {
            int ch = tree_child(&tr, 0, root_moves[i]);
            PyObject *item;
            if (ch < 0) item = Py_BuildValue("(idd)", 0, 0.0, 0.0);
            else item = Py_BuildValue("(idd)", tr.v[ch].visits, tr.v[ch].w[seat], tr.v[ch].value);
            if (!item) { Py_DECREF(lst); goto done; }
            PyList_SET_ITEM(lst, i, item);
        }
        result = Py_BuildValue("(iN)", it, lst);
    }
done:
    Py_XDECREF(st);
    PyMem_Free(tr.v);
    PyMem_Free(path);
    PyMem_Free(movers);
    PyMem_Free(root_moves);
    PyMem_Free(legal);
    PyMem_Free(untried);
    PyMem_Free(buf);
    PyMem_Free(buf2);
    PyMem_Free(scratch);
    return result;
}

static PyObject *cs_get(CState *c, void *which) {
    ST(c);
    switch ((int)(intptr_t)which) {
    case 0: return PyBool_FromLong(SC(S_DONE));
    case 1: return PyLong_FromLong(SC(S_CUR));
    case 2: return PyLong_FromLong(SC(S_PHASE));
    case 3: return ints_list(A + c->t->o_score, c->t->n);
    case 4: return ints_list(WINNERS + 1, WINNERS[0]);
    case 5: return PyLong_FromLong(SC(S_TURN));
    default: Py_RETURN_NONE;
    }
}

static PyGetSetDef cs_getset[] = {
    {"done", (getter)cs_get, NULL, "whether the game is over", (void *)0},
    {"cur", (getter)cs_get, NULL, "the seat to act (-1 when over)", (void *)1},
    {"phase", (getter)cs_get, NULL, "the phase (a Phase value)", (void *)2},
    {"score", (getter)cs_get, NULL, "the scores", (void *)3},
    {"winners", (getter)cs_get, NULL, "the winners once over", (void *)4},
    {"turn", (getter)cs_get, NULL, "the turn", (void *)5},
    {NULL},
};

static void ob_counts(float *x, Py_ssize_t size, Py_ssize_t at, const int *lst, int kinds,
                      double scale) {
    /* Count first, divide once (Observer._counts): per kind, count / scale. */
    int c[16] = {0};
    if (!lst[0] || kinds > 16) return;
    for (int i = 0; i < lst[0]; i++) if (lst[1 + i] >= 0 && lst[1 + i] < kinds) c[lst[1 + i]]++;
    for (int k = 0; k < kinds; k++) if (at + k >= 0 && at + k < size) x[at + k] = (float)(c[k] / scale);
}

static void observe_into(St *s, int me, float *x, Py_ssize_t size) {
    const int *L = T->obs;
    int n = T->n, K = L[OB_KINDS];
#define X(i, v) do { Py_ssize_t i_ = (i); if (i_ >= 0 && i_ < size) x[i_] = (float)(v); } while (0)
#define REL(q) ((((q) - me) % n + n) % n)
    memset(x, 0, sizeof(float) * (size_t)size);
    Py_ssize_t w = 2 + (Py_ssize_t)n * K;
    for (int h = 0; h < T->ns; h++) {
        int o = OWNER(h);
        Py_ssize_t at = L[OB_BOARD] + h * w;
        if (o < 0) X(at, 1.0);
        else if (o == NEUTRAL) X(at + 1, 1.0);
        else if (o < n && TILE(h) >= 0 && TILE(h) < K) X(at + 2 + REL(o) * K + TILE(h), 1.0);
    }
    double ss = L[OB_SCORE_SCALE], tps = L[OB_TILES_PER_SEAT], sa = L[OB_SET_ASIDE];
    int nc = L[OB_NCAT];
    for (int q = 0; q < n; q++) {
        int r = REL(q);
        X(L[OB_SCORES] + r, SCORE(q) / ss);
        for (int c = 0; c < nc; c++) X(L[OB_BREAKDOWN] + r * nc + c, CAT(L[OB_CAT0 + c], q) / ss);
        X(L[OB_SUPPLY] + r, (SUPPLY(q)[0] - DRAWN(q)) / tps);
        X(L[OB_HANDC] + r, HAND(q) >= 0 ? 1.0 : 0.0);
        X(L[OB_ASIDEC] + r, ASIDE(q)[0] / sa);
        const int *held = T->ireland ? TOWC(q) : CATHC(q);
        X(L[OB_MISSIONC] + r, (double)held[0] / (T->ncards > 1 ? T->ncards : 1));
        X(L[OB_PLACED] + r, PLACED(q) / tps);
        ob_counts(x, size, L[OB_DISCARDED] + (Py_ssize_t)r * K, DISCARDED(q), K, tps);
        ob_counts(x, size, L[OB_PUB_ASIDE] + (Py_ssize_t)r * K,
                  T->set_aside_public ? ASIDE(q) : KNOWN(q), K, sa);
    }
    for (int c = 0; c < T->nc; c++) {
        int hd = HOLDER(c);
        X(L[OB_CASTLES] + c * (n + 1) + (hd >= 0 && hd < n ? REL(hd) : n), 1.0);
    }
    for (int k = 0; k < T->nk; k++)
        for (int q = 0; q < n; q++) if (CATH(k) >> q & 1) X(L[OB_CATH] + k * n + REL(q), 1.0);
    for (int k = 0; k < T->nt; k++) {
        for (int q = 0; q < n; q++) if (TVIS(k) >> q & 1) X(L[OB_TVIS] + k * n + REL(q), 1.0);
        if (TOKENS(k) >= 0 && TOKENS(k) < T->ntok) X(L[OB_TTOK] + k * T->ntok + TOKENS(k), 1.0);
    }
    /* The seat's own hidden items: nothing of another seat's (infoset.view). */
    if (HAND(me) >= 0) X(L[OB_HAND] + HAND(me), 1.0);
    if (T->own_set_aside || ASIDE(me)[0] == 0) X(L[OB_OWN_ASIDE_VIS], 1.0);
    if (T->own_set_aside) ob_counts(x, size, L[OB_OWN_ASIDE], ASIDE(me), K, sa);
    const int *own = T->ireland ? TOWC(me) : CATHC(me);
    for (int i = 0; i < own[0]; i++) X(L[OB_OWN_MISSIONS] + own[1 + i], 1.0);
    for (int i = 0; i < SC(S_DISPLAY_LEN); i++) {
        int m = DISPLAY[i];
        X(L[OB_DISPLAY] + m, 1.0);
        if (m < 0 || m >= T->ncards) continue;
        for (int q = 0; q < n; q++) if (FULFILLED(m) >> q & 1) X(L[OB_FULFILLED] + m * n + REL(q), 1.0);
    }
    for (int q = 0; q < n; q++) {
        const int *mk = MARKS(q);
        for (int i = 0; i < mk[0]; i++) X(L[OB_MARKS] + mk[1 + i] * n + REL(q), 1.0);
    }
    double deck = (SC(S_DECK_LEN) - SC(S_NEXT_CARD)) / (double)L[OB_DECK_SIZE];
    X(L[OB_DECK], deck < 1.0 ? deck : 1.0);
    X(L[OB_PHASE] + SC(S_PHASE), 1.0);
    X(L[OB_CUR] + (SC(S_DONE) ? n + 1 : SC(S_PHASE) == PH_CHANCE ? n : REL(SC(S_CUR))), 1.0);
    if (SC(S_EXTRA_TILE) >= 0) X(L[OB_EXTRA] + SC(S_EXTRA_TILE), 1.0);
    double cap = L[OB_PENDING_CAP], pe = SC(S_PEXTRA) / cap, pd = SC(S_PDOUBLE) / cap;
    X(L[OB_PENDING], pe < 1.0 ? pe : 1.0);
    X(L[OB_PENDING] + 1, pd < 1.0 ? pd : 1.0);
    for (int i = 0; i < WINNERS[0]; i++) X(L[OB_WINNERS] + REL(WINNERS[1 + i]), 1.0);
#undef X
#undef REL
}

static int get_buffer(PyObject *o, Py_buffer *b, const char *fmt, Py_ssize_t itemsize,
                      const char *what) {
    if (PyObject_GetBuffer(o, b, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS)) return -1;
    if (b->itemsize != itemsize || !b->format || strcmp(b->format, fmt) != 0) {
        PyErr_Format(PyExc_TypeError, "native core: %s must be a writable %s array", what,
                     itemsize == 4 ? "float32" : "int8");
        PyBuffer_Release(b);
        return -1;
    }
    return 0;
}

static PyObject *cs_observe(CState *c, PyObject *args) {
    int seat;
    PyObject *obs, *mask;
    if (!PyArg_ParseTuple(args, "iOO", &seat, &obs, &mask)) return NULL;
    ST(c);
    if (!T->obs[OB_SIZE]) {
        PyErr_SetString(PyExc_ValueError, "native core: no observation layout (Tables.set_observation)");
        return NULL;
    }
    if (seat < 0 || seat >= T->n) {
        PyErr_Format(PyExc_ValueError, "native core: seat %d is not a seat of this game", seat);
        return NULL;
    }
    Py_buffer ob, mb;
    if (get_buffer(obs, &ob, "f", 4, "the observation")) return NULL;
    if (ob.len / 4 != T->obs[OB_SIZE]) {
        PyErr_Format(PyExc_ValueError, "native core: the observation holds %d floats, not %zd",
                     T->obs[OB_SIZE], ob.len / 4);
        PyBuffer_Release(&ob);
        return NULL;
    }
    if (get_buffer(mask, &mb, "b", 1, "the action mask")) { PyBuffer_Release(&ob); return NULL; }
    int *buf = legal_buf(T);
    if (!buf) { PyBuffer_Release(&ob); PyBuffer_Release(&mb); return PyErr_NoMemory(); }
    observe_into(s, seat, (float *)ob.buf, ob.len / 4);
    signed char *m = (signed char *)mb.buf;
    memset(m, 0, (size_t)mb.len);
    /* The mask as the view's legal ids: only for the seat to act (not at chance, not over). */
    if (!SC(S_DONE) && SC(S_PHASE) != PH_CHANCE && SC(S_CUR) == seat) {
        int k = legal_ids(s, buf);
        for (int i = 0; i < k; i++) if (buf[i] >= 0 && buf[i] < mb.len) m[buf[i]] = 1;
    }
    PyMem_Free(buf);
    PyBuffer_Release(&ob);
    PyBuffer_Release(&mb);
    Py_RETURN_NONE;
}

static PyMethodDef cs_methods[] = {
    {"pack", (PyCFunction)cs_pack, METH_NOARGS, "the state as the flat list CState() reads"},
    {"clone", (PyCFunction)cs_clone, METH_NOARGS, "an independent copy"},
    {"legal", (PyCFunction)cs_legal, METH_NOARGS, "State.legal_action_ids"},
    {"apply", (PyCFunction)cs_apply, METH_O, "State.apply_id of a legal id (checked)"},
    {"random_action", (PyCFunction)cs_random_action, METH_O, "State.random_action_id(rng)"},
    {"fast_policy", (PyCFunction)cs_fast_policy, METH_VARARGS, "mcts.fast_policy(state, rng, eps)"},
    {"playout", (PyCFunction)cs_playout, METH_VARARGS, "playout(rng, policy, eps, plies): steps played"},
    {"projected", (PyCFunction)cs_projected, METH_O, "evaluate.projected(state, weights)"},
    {"trace", (PyCFunction)cs_trace, METH_VARARGS, "trace(rng, policy, eps, full): every step of a playout"},
    {"score_actions", (PyCFunction)cs_score_actions, METH_VARARGS, "heuristic.score_actions"},
    {"resample", (PyCFunction)cs_resample, METH_VARARGS, "State.resample_from_infostate"},
    {"resample_many", (PyCFunction)cs_resample_many, METH_VARARGS, "resample(seat, rng) count times"},
    {"mcts", (PyCFunction)cs_mcts, METH_VARARGS, "MCTSBot.analyse's search loop"},
    {"observe", (PyCFunction)cs_observe, METH_VARARGS,
     "observe(seat, obs float32[size], mask int8[actions]): Observer.encode and the legal mask"},
    {NULL},
};

static PyTypeObject CStateType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "rebirth._core.CState",
    .tp_basicsize = sizeof(CState),
    .tp_dealloc = (destructor)cstate_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A game state as flat arrays (see rebirth.engine.native).",
    .tp_methods = cs_methods,
    .tp_getset = cs_getset,
    .tp_new = cstate_new,
};

static PyObject *mod_deal(PyObject *self, PyObject *args) {
    PyObject *tables;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "O!K", &TablesType, &tables, &seed)) return NULL;
    CState *c = cstate_alloc((Tables *)tables);
    if (!c) return NULL;
    ST(c);
    int rc = new_game(s, seed);
    if (rc) { Py_DECREF(c); return rc == -1 && PyErr_Occurred() ? NULL : rules_error(); }
    return (PyObject *)c;
}

/* app/bench.py games_per_second: deal and play random games for `seconds`. */
static PyObject *mod_random_games(PyObject *self, PyObject *args) {
    PyObject *tables;
    unsigned long long seed;
    double seconds;
    long max_games;
    if (!PyArg_ParseTuple(args, "O!Kdl", &TablesType, &tables, &seed, &seconds, &max_games)) return NULL;
    Tables *t = (Tables *)tables;
    CState *c = cstate_alloc(t);
    if (!c) return NULL;
    ST(c);
    int *buf = legal_buf(t), *buf2 = legal_buf(t);
    MT r;
    mt_seed64(&r, seed);
    long count = 0;
    long long checksum = 0; /* the sum of every final score: the tests compare it with the engine's */
    double start = now_s(), now = start;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    while (1) {
        uint32_t s32 = mt_next(&r);
        if (new_game(s, s32) || playout(s, &r, 0, 0.0, -1, buf, buf2) < 0) { bad = 1; break; }
        count++;
        for (int q = 0; q < t->n; q++) checksum += SCORE(q);
        now = now_s();
        if ((seconds > 0 && now >= start + seconds) || (max_games > 0 && count >= max_games)) break;
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(buf);
    PyMem_Free(buf2);
    Py_DECREF(c);
    if (bad) return rules_error();
    return Py_BuildValue("(ldL)", count, now - start, checksum);
}

static PyMethodDef mod_methods[] = {
    {"deal", mod_deal, METH_VARARGS, "Game.new_state(seed) as a CState"},
    {"random_games", mod_random_games, METH_VARARGS,
     "random_games(tables, seed, seconds, max_games): (games, seconds, sum of final scores) as app/bench.py plays them"},
    {"outcomes", mod_outcomes, METH_VARARGS, "analysis Worlds.outcomes over CStates"},
    {NULL},
};

static struct PyModuleDef coremodule = {
    PyModuleDef_HEAD_INIT, "rebirth._core",
    "The native hot path of the engine (issue 28); rebirth.engine.native wraps it.", -1, mod_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&TablesType) < 0 || PyType_Ready(&CStateType) < 0) return NULL;
    PyObject *m = PyModule_Create(&coremodule);
    if (!m) return NULL;
    Py_INCREF(&TablesType);
    Py_INCREF(&CStateType);
    if (PyModule_AddObject(m, "Tables", (PyObject *)&TablesType) ||
        PyModule_AddObject(m, "CState", (PyObject *)&CStateType) ||
        PyModule_AddIntConstant(m, "LAYOUT_VERSION", 1)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
