"""The tree of ``ismcts:K``: single-observer information-set MCTS (Cowling, Powley and
Whitehouse, 2012) in the shedding kernel. The driver, which plays the iterations, is
:func:`.kernel._ismcts`; :mod:`.reference_search` is the readable twin.

A searching seat (the observer) grows one tree per decision, K iterations. Iteration j
deals what the observer cannot see at random (:func:`.search.determinize`, from the stream
``(seed, search_game(game, deal, decision), SEARCH_STREAM + j)``), then walks down the tree
from the root, every seat deciding in turn (the observer's options at the root, then each
seat's at its own decisions): at a decision with two options or more (the options and
their order are :func:`.search.options`'), if some option open here has no node under the
current one, one of them (uniform, from the iteration's stream; no draw when only one) gets
a node and the iteration leaves the tree; otherwise the seat takes the child of best UCB1,
``wins / visits + c * sqrt(ln(available) / visits)`` (ties to the first option), where
``available`` counts the iterations in which that child's option was open at its parent
(availability, the paper's n'). A node's key is the seat that decides, the kind of
decision, the option's action and suit: an opponent's nodes are shared by every
determinization in which that opponent had that option. Out of the tree every seat plays
the rollout policy to the end; every node walked gets a visit, and a win when the seat that
chose it won the game (a game without a winner is a loss for all). The seat takes the root
option visited most often (ties to the first).

The tree lives past the copy of the game the iterations play (``g[G_SIZE:]`` of that
copy), so that a seat deciding inside :func:`.kernel._play` reaches it without a call out of
the kernel: a header (``T_*``), the current decision's options, then the nodes, ``NODE``
words each, at most K + 1 of them (each iteration adds at most one to the root).
"""

from __future__ import annotations

import math

from numba import njit

from ...core.compiled.rng_jit import bounded
from .kernel_layout import G_SIZE, S_N, S_NAMED, S_STRATEGY, STRAT_TREE
from .rules import MAX_PLAYERS
from .search import MAX_OPTIONS, options
from .strategies import EXPLORE_SCALE

# The header: the node the iteration stands at (-1: it has left the tree), the last node
# it walked (where the visits are counted), nodes in use, the exploration constant (x
# EXPLORE_SCALE), the rollout policy's code, then a decision's options (action, suit) and
# the node of each (-1: none yet).
T_CURRENT = 0
T_LEAF = 1
T_NODES = 2
T_EXPLORE = 3
T_ROLLOUT = 4
T_ACTIONS = 5
T_SUITS = T_ACTIONS + MAX_OPTIONS
T_FOUND = T_SUITS + MAX_OPTIONS
T_NODE0 = T_FOUND + MAX_OPTIONS
# A node: its key, the seat that chose it, its parent, first child and next sibling (-1:
# none), then its visits, availability and wins.
N_KEY, N_SEAT, N_PARENT, N_CHILD, N_SIBLING, N_VISITS, N_AVAIL, N_WINS = range(8)
NODE = 8


@njit(cache=True, _nrt=False)
def tree_words(budget):
    """The words of a tree of ``budget`` iterations (the root and one node per iteration)."""
    return T_NODE0 + NODE * (budget + 1)


@njit(cache=True, inline="always", _nrt=False)
def _at(node):
    return T_NODE0 + NODE * node


@njit(cache=True, inline="always", _nrt=False)
def key_of(seat, kind, action, suit):
    """One word for (seat, kind, action, suit): action from ``KEEP`` (-5) to 51, suit -1..3."""
    return (((action + 8) * 5 + suit + 1) * 3 + kind) * MAX_PLAYERS + seat


@njit(cache=True, _nrt=False)
def reset(tree, explore, rollout):
    """A tree holding its root only; ``explore``: c x ``EXPLORE_SCALE``; ``rollout``: the
    code of the policy played out of the tree."""
    tree[T_NODES] = 1
    tree[T_EXPLORE] = explore
    tree[T_ROLLOUT] = rollout
    root = _at(0)
    tree[root + N_PARENT] = -1
    tree[root + N_CHILD] = -1
    tree[root + N_SIBLING] = -1


@njit(cache=True, _nrt=False)
def start(tree):
    """An iteration starts at the root."""
    tree[T_CURRENT] = 0
    tree[T_LEAF] = 0


@njit(cache=True, _nrt=False)
def step(tree, seat, kind, actions, suits, count, stream):
    """``seat``'s decision among ``count`` options (``actions``, ``suits``) at the current
    node: the index of the option taken (see the module for how). Moves the current node to
    its child, or leaves the tree (``tree[T_CURRENT] = -1``) after adding a node."""
    node = tree[T_CURRENT]
    untried = 0
    for o in range(count):
        key = key_of(seat, kind, actions[o], suits[o])
        child = tree[_at(node) + N_CHILD]
        while child >= 0 and tree[_at(child) + N_KEY] != key:
            child = tree[_at(child) + N_SIBLING]
        tree[T_FOUND + o] = child
        if child < 0:
            untried += 1
    taken = 0
    if untried > 0:
        k = bounded(stream, untried) if untried >= 2 else 0
        for o in range(count):
            if tree[T_FOUND + o] < 0:
                if k == 0:
                    taken = o
                    break
                k -= 1
        child = tree[T_NODES]
        tree[T_NODES] += 1
        at = _at(child)
        tree[at + N_KEY] = key_of(seat, kind, actions[taken], suits[taken])
        tree[at + N_SEAT] = seat
        tree[at + N_PARENT] = node
        tree[at + N_CHILD] = -1
        tree[at + N_SIBLING] = tree[_at(node) + N_CHILD]
        tree[at + N_VISITS] = 0
        tree[at + N_AVAIL] = 0
        tree[at + N_WINS] = 0
        tree[_at(node) + N_CHILD] = child
        tree[T_FOUND + taken] = child
        tree[T_CURRENT] = -1
    else:
        explore = tree[T_EXPLORE] / EXPLORE_SCALE
        best = -1.0
        for o in range(count):
            at = _at(tree[T_FOUND + o])
            visits = tree[at + N_VISITS]
            value = tree[at + N_WINS] / visits + explore * math.sqrt(
                math.log(tree[at + N_AVAIL]) / visits
            )
            if value > best:
                best = value
                taken = o
        tree[T_CURRENT] = tree[T_FOUND + taken]
    for o in range(count):  # the options open here that have a node
        if tree[T_FOUND + o] >= 0:
            tree[_at(tree[T_FOUND + o]) + N_AVAIL] += 1
    tree[T_LEAF] = tree[T_FOUND + taken]
    return taken


@njit(cache=True, _nrt=False)
def backpropagate(tree, winner):
    """A visit to every node the iteration walked, and a win to those chosen by ``winner``
    (-1: nobody won)."""
    node = tree[T_LEAF]
    while node > 0:
        at = _at(node)
        tree[at + N_VISITS] += 1
        tree[at + N_WINS] += tree[at + N_SEAT] == winner
        node = tree[at + N_PARENT]


@njit(cache=True, _nrt=False)
def most_visited(tree, seat, kind, actions, suits, count):
    """The root option visited most often (ties, and options never tried: the first)."""
    best = 0
    most = -1
    for o in range(count):
        key = key_of(seat, kind, actions[o], suits[o])
        child = tree[_at(0) + N_CHILD]
        while child >= 0 and tree[_at(child) + N_KEY] != key:
            child = tree[_at(child) + N_SIBLING]
        visits = tree[_at(child) + N_VISITS] if child >= 0 else 0
        if visits > most:
            most = visits
            best = o
    return best


@njit(cache=True, _nrt=False)
def decide(g, seat, kind, card, mask, may_draw, may_pass, mode, stream):
    """The decision of a seat inside an iteration's tree (code ``STRAT_TREE``): its
    options (:func:`.search.options`' arguments), one of them taken by :func:`step`; the
    suit a wild names left in ``g[S_NAMED]``. ``g``: the iteration's copy of the game, its
    tree past ``G_SIZE``. Leaving the tree, every seat turns to the rollout policy."""
    tree = g[G_SIZE:]
    actions = tree[T_ACTIONS:T_SUITS]
    suits = tree[T_SUITS:T_FOUND]
    count = options(g, kind, card, mask, may_draw, may_pass, mode, actions, suits)
    taken = 0
    if count > 1:
        taken = step(tree, seat, kind, actions, suits, count, stream)
        if tree[T_CURRENT] < 0:
            leave(g, tree)
    g[S_NAMED] = suits[taken] + 1
    return actions[taken]


@njit(cache=True, _nrt=False)
def enter(g):
    """Every seat of the iteration's copy ``g`` decides in the tree."""
    for seat in range(g[S_N]):
        g[S_STRATEGY + seat] = STRAT_TREE


@njit(cache=True, _nrt=False)
def leave(g, tree):
    """Every seat of the iteration's copy ``g`` plays the rollout policy from here."""
    for seat in range(g[S_N]):
        g[S_STRATEGY + seat] = tree[T_ROLLOUT]
