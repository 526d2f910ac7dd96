"""Figures of a result: drawn when first looked at, unless saved or shown at the end of the run."""

from matplotlib.figure import Figure

from blocksim import Diagram, simulate
from blocksim.blocks import Scope, Step
from blocksim.engine.figures import Figures


def test_a_deferred_figure_is_drawn_once_on_first_access():
    calls = []
    figs = Figures()
    figs.defer("scope", lambda: calls.append(1) or "figure")
    assert list(figs) == ["scope"] and len(figs) == 1 and not calls
    assert figs["scope"] == "figure" and figs["scope"] == "figure" and calls == [1]
    assert dict(figs) == {"scope": "figure"}
    figs["other"] = 2
    del figs["scope"]
    assert dict(figs) == {"other": 2}


def scope_diagram(**scope) -> Diagram:
    d = Diagram("scoped")
    d.add(Step(time=0.5), name="step")
    d.add(Scope(**scope), name="scope")
    d.connect("step.y", "scope.u")
    return d


def test_a_scope_that_neither_saves_nor_shows_draws_only_when_asked():
    r = simulate(scope_diagram(), 1.0)
    assert "drawn on first access: [scope]" in repr(r.figures)
    fig = r.figures["scope"]
    assert isinstance(fig, Figure) and fig.axes[0].lines
    assert "drawn: [scope]" in repr(r.figures)


def test_a_scope_that_saves_draws_at_the_end_of_the_run(tmp_path):
    r = simulate(scope_diagram(file=tmp_path / "s.png"), 1.0)
    assert (tmp_path / "s.png").stat().st_size > 0
    assert "drawn: [scope]" in repr(r.figures)
