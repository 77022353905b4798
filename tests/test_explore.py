"""The routing explorer without a browser: its model (query -> outcome) and its widgets driven from Python.

The served app, driven in Chromium, is tested in ``test_explore_app.py``.
"""

from __future__ import annotations

import ipywidgets as widgets
import numba
import pytest
from matplotlib.backend_bases import MouseEvent

from torus_lab.explore import routing_explorer
from torus_lab.explore.routing_model import RoutingQuery, explore_routing, network
from torus_lab.routing import REGISTRY, Option, make_routing, normalize_spec, register_routing
from torus_lab.topology import Torus, make_network


def _message(call) -> str:
    with pytest.raises((ValueError, TypeError)) as refused:
        call()
    return str(refused.value)


def test_ecube_without_datelines_on_a_4x4_torus_is_cyclic_with_a_ring_of_4_channels():
    out = explore_routing(RoutingQuery(k=4, options={"datelines": False}))
    topo = out.query.topology
    assert not out.verdict.acyclic and len(out.cycle_channels) == 4
    ring = out.cycle_channels
    for a, b in zip(ring, ring[1:] + ring[:1], strict=True):  # each channel ends where the next starts, one ring
        assert topo.channel_dst[a] == topo.channel_src[b]
        assert (topo.channel_dim[a], topo.channel_sign[a]) == (topo.channel_dim[b], topo.channel_sign[b])
    assert sum(topo.is_wraparound(c) for c in ring) == 1
    fixed = explore_routing(RoutingQuery(k=4, options={"datelines": True, "vcs": 2}))
    assert fixed.verdict.acyclic and fixed.cycle_channels == [] and fixed.route == out.route
    assert any("witness cycle of 4 channels" in line for line in out.lines())


@pytest.mark.parametrize(("routing", "options"), [("ecube", {}), ("west-first", {}), ("duato", {}),
                                                  ("direction-first", {}), ("pfnf", {"scheme": "paper"}),
                                                  ("turn-model", {"algorithm": "west-first"})])  # fmt: skip
def test_allowed_routes_are_the_routes_the_routing_function_enumerates(routing, options):
    topo = Torus(2, 4)
    rf = make_routing({"name": routing, **options}, topo)
    for source, destination in [((0, 0), (2, 1)), ((3, 1), (1, 3)), ((1, 2), (1, 0))]:
        out = explore_routing(RoutingQuery(routing=routing, options=options, source=source, destination=destination))
        routes = {tuple(c for c, _ in hops) for hops in rf.enumerate_routes(source, destination)}
        assert not any(-1 in r for r in routes)
        assert out.allowed_routes == len(routes)
        assert out.allowed_channels == sorted({c for r in routes for c in r})
        assert out.allowed_hops == (min(map(len, routes)), max(map(len, routes)))
        assert out.route == rf.route(source, destination) and out.hops == len(out.route) - 1
        assert out.lee == topo.lee_distance(source, destination)


def test_the_escape_check_appears_for_a_routing_with_escape_vcs_only():
    duato = explore_routing(RoutingQuery(routing="duato"))
    assert duato.escape_vcs == [0, 1] and duato.escape.deadlock_free and not duato.verdict.acyclic
    assert any("Duato's condition holds" in line for line in duato.lines())
    ecube = explore_routing(RoutingQuery())
    assert ecube.escape is None and not any("Duato" in line for line in ecube.lines())


def test_bad_input_gives_the_api_s_message_before_any_work():
    cases = [
        (dict(k=1), lambda: make_network("bidirectional", 1, 2)),
        (dict(options={"vcs": 0}), lambda: normalize_spec({"name": "ecube", "vcs": 0})),
        (dict(options={"vc": 2}), lambda: normalize_spec({"name": "ecube", "vc": 2})),
        (dict(source=(9, 0)), lambda: Torus(2, 4).check_node((9, 0), "source")),
    ]
    for kwargs, api in cases:
        assert _message(lambda kwargs=kwargs: RoutingQuery(**kwargs)) == _message(api)
    # refused when the routing is built: make_routing's own message
    query = RoutingQuery(options={"datelines": True})
    built = _message(lambda: make_routing({"name": "ecube", "datelines": True}, Torus(2, 4)))
    assert _message(lambda: explore_routing(query)) == built == "datelines need vcs >= 2, got vcs=1"
    assert "up to 1024 nodes" in _message(lambda: network("torus", 3, 16))
    assert _message(lambda: RoutingQuery(destination=(0, 0))) == "source and destination must differ, both are (0, 0)"


def test_the_widget_shows_the_api_s_message_and_recovers():
    explorer = routing_explorer()
    try:
        explorer.set_option("vcs", 0)
        assert explorer.error == _message(lambda: normalize_spec({"name": "ecube", "vcs": 0}))
        assert explorer.outcome is None and "must be &gt;= 1, got 0" in explorer.message.value
        explorer.set_option("vcs", 2)
        explorer.set_option("datelines", True)
        assert explorer.error == "" and explorer.outcome.verdict.acyclic
        explorer.k.value = 1  # a network make_network refuses
        assert explorer.error == _message(lambda: make_network("bidirectional", 1, 2)) and explorer.outcome is None
        explorer.k.value = 5
        assert explorer.outcome is not None and explorer.outcome.query.topology == Torus(2, 5)
        assert explorer.outcome.query.destination == (2, 1)  # a new network starts from the default nodes
    finally:
        explorer.close()


def _click(explorer, x: float, y: float) -> None:
    """A left click at data coordinates ``(x, y)`` of the drawing, as the canvas reports one."""
    fig = explorer.figure
    fig.canvas.draw()
    px, py = fig.axes[0].transData.transform((x, y))
    fig.canvas.callbacks.process("button_press_event", MouseEvent("button_press_event", fig.canvas, px, py, 1))


def test_clicks_pick_source_destination_and_faults():
    explorer = routing_explorer(k=4)
    try:
        _click(explorer, 3.1, 2.9)  # near (3, 3): the source, then clicks set the destination
        assert explorer.outcome.query.source == (3, 3) and explorer.click_mode.value == "destination"
        assert [b.value for b in explorer.source] == [3, 3]
        _click(explorer, 1, 0)
        assert explorer.outcome.query.destination == (1, 0)
        assert explorer.outcome.route[0] == (3, 3) and explorer.outcome.route[-1] == (1, 0)
        before = explorer.outcome.query
        _click(explorer, 1.5, 1.5)  # between nodes: nothing
        assert explorer.outcome.query == before
        explorer.click_mode.value = "fault"
        _click(explorer, 2, 2)
        assert explorer.outcome.query.faults.nodes == {(2, 2)}
        _click(explorer, 1, 0)  # the destination cannot fail
        assert explorer.error == "destination (1, 0) is a faulty node"
        _click(explorer, 1, 0)
        _click(explorer, 2, 2)
        assert explorer.error == "" and not explorer.outcome.query.faults.nodes
    finally:
        explorer.close()


def test_random_faults_are_drawn_with_a_seed_and_the_route_checked_against_them():
    a = explore_routing(RoutingQuery(k=8, fault_kind="links", fault_rate=0.1, fault_seed=3, destination=(5, 3)))
    b = explore_routing(RoutingQuery(k=8, fault_kind="links", fault_rate=0.1, fault_seed=3, destination=(5, 3)))
    assert a.query.faults == b.query.faults and len(a.query.faults.links) > 0
    crossed = any(c in a.query.faults.links for c, _ in a.routing.route_hops((0, 0), (5, 3)))
    assert a.route_avoids_faults is (not crossed)


def test_three_dimensional_networks_and_hypercubes():
    explorer = routing_explorer(network="hypercube", n=3, k=2, destination=(1, 1, 0))
    try:
        assert explorer.k.disabled and len(explorer.source) == 3
        assert explorer.figure.axes[0].name == "3d" and explorer.outcome.hops == 2
        explorer.network.value = "torus"
        explorer.n.value = 4
        explorer.k.value = 3
        assert explorer.outcome.query.topology == Torus(4, 3) and len(explorer.destination) == 4
        assert "no drawing for n = 4" in explorer.figure.axes[0].texts[0].get_text()
    finally:
        explorer.close()


def _order_kernel():
    @numba.njit
    def ordered(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
        n = tables.radices.shape[0]  # + direction only, dimensions up (order=up) or down (order=down)
        for i in range(n):
            d = i if tables.iparams[2] == 0 else n - 1 - i
            if tables.coords[cur * n + d] != tables.coords[dst * n + d]:
                out_ch[0] = tables.slot[(cur * n + d) * 2 + 1]
                out_vc[0] = 0
                out_state[0, :] = state
                return 1
        return 0

    return ordered


def test_a_registered_routing_appears_with_controls_for_its_options():
    options = (Option("eager", "a bool", default=False), Option("spread", "an int", default=1, minimum=1),
               Option("order", "a choice", default="up", choices=("up", "down")),
               Option("offset", "an int or None", default=None, types=(int, type(None)), minimum=0))  # fmt: skip
    with REGISTRY.scoped():
        register_routing("test-ordered", _order_kernel(), options=options, adaptive=False)
        explorer = routing_explorer()
        try:
            assert "test-ordered" in explorer.routing.options
            explorer.routing.value = "test-ordered"
            box = explorer.options_box
            assert list(box.controls) == ["eager", "spread", "order", "offset"]
            kinds = [type(w) for w in box.controls.values()]
            assert kinds == [widgets.Checkbox, widgets.IntText, widgets.Dropdown, widgets.HBox]
            assert box.values() == {"eager": False, "spread": 1, "order": "up", "offset": None}
            up = explorer.outcome
            assert up.route[:2] == [(0, 0), (1, 0)]  # dimension 0 first
            explorer.set_option("order", "down")
            assert explorer.outcome.route[:2] == [(0, 0), (0, 1)]  # dimension 1 first
            assert "(order=down)" in explorer.outcome.lines()[0]
            explorer.set_option("offset", 2)
            assert explorer.outcome.query.spec["offset"] == 2
            explorer.set_option("spread", 0)  # below the option's minimum: the registry's message
            assert explorer.error == _message(lambda: normalize_spec({"name": "test-ordered", "spread": 0}))
        finally:
            explorer.close()
