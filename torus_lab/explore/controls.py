"""Widgets generated from the routing registry's option records, shared by the explorers.

A routing's options are :class:`torus_lab.routing.registry.Option` records (name, doc, default, choices, minimum,
types).  :func:`option_widget` turns one record into one ipywidgets control, chosen by the record alone, so a
routing registered at run time (``register_routing``) gets its controls with no code of its own:

* ``choices`` -> a drop-down of the choices;
* a bool -> a check box;
* an int -> an integer box (unbounded: a value below ``minimum`` reaches the registry, whose message the explorer
  shows);
* a float -> a number box; a str -> a text box;
* ``types`` holding ``NoneType`` and one other type (``dateline_offset`` of PFNF: an int, or None for the
  default) -> a check box "default (None)" beside the control of the other type.

:class:`OptionsBox` holds the controls of one routing entry and reads their values back as a mapping (the
options of a routing spec, ``{"name": ..., **options}``).

Examples
--------
>>> from torus_lab.routing import routing_entry
>>> box = OptionsBox(routing_entry("ecube"))
>>> box.values()
{'datelines': False, 'vcs': 1, 'tie': '+', 'dateline_rule': 'switch', 'variant': 'ecube'}
>>> type(box.controls["tie"]).__name__, type(box.controls["datelines"]).__name__
('Dropdown', 'Checkbox')
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from torus_lab._validate import check_instance
from torus_lab.routing.registry import Option, RoutingEntry

__all__ = ["OptionControl", "option_widget", "OptionsBox"]

#: Width of an option's label, so that the controls of one routing line up.
_LABEL_STYLE = {"description_width": "9em"}


class OptionControl:
    """One option's control: ``widget`` (what is shown) and ``value`` (what the registry receives).

    Parameters
    ----------
    option : Option
        The registry's record of the option.
    """

    def __init__(self, option: Option) -> None:
        self.option = check_instance("option", option, Option, "an Option record of the registry")
        self._none: widgets.Checkbox | None = None
        types = option.allowed_types() if option.choices is None else ()
        others = [t for t in types if t is not type(None)]
        self._inner = _plain_widget(option, others[0] if len(others) == 1 and len(types) == 2 else None)
        if len(others) == 1 and len(types) == 2:  # an optional value: None, or one of the other type
            self._none = widgets.Checkbox(value=option.default is None, description="default (None)", indent=False,
                                          layout=widgets.Layout(width="auto"))  # fmt: skip
            self._inner.disabled = option.default is None
            self._none.observe(lambda change: setattr(self._inner, "disabled", change["new"]), "value")
            self.widget: widgets.Widget = widgets.HBox([self._inner, self._none])
        else:
            self.widget = self._inner
        self.widget.tooltip = option.doc
        self.widget.add_class(f"torus-lab-option-{option.name}")  # what a page script or a browser test finds

    @property
    def value(self) -> Any:
        """The option's value as the registry takes it (None for an optional value left at its default)."""
        if self._none is not None and self._none.value:
            return None
        return self._inner.value

    def observe(self, handler: Callable[[dict], None]) -> None:
        """Call ``handler(change)`` whenever the value changes."""
        self._inner.observe(handler, "value")
        if self._none is not None:
            self._none.observe(handler, "value")

    def set(self, value: Any) -> None:
        """Show ``value`` (a value the control can hold; None for an optional value)."""
        if self._none is not None:
            self._none.value = value is None
            if value is None:
                return
        self._inner.value = value


def _plain_widget(option: Option, kind: type | None) -> widgets.ValueWidget:
    """The control of a value of ``kind`` (the option's own type when None)."""
    label = {"description": option.name, "style": _LABEL_STYLE, "layout": widgets.Layout(width="18em")}
    if option.choices is not None:
        return widgets.Dropdown(options=[(str(c), c) for c in option.choices], value=option.default, **label)
    if kind is None:
        kind = option.allowed_types()[0]
    default = option.default
    if kind is bool:
        return widgets.Checkbox(value=bool(default), description=option.name, indent=False,
                                layout=widgets.Layout(width="18em"))  # fmt: skip
    if issubclass(kind, numbers.Integral):
        return widgets.IntText(value=default if isinstance(default, numbers.Integral) else option.minimum or 0,
                               **label)  # fmt: skip
    if issubclass(kind, numbers.Real):
        return widgets.FloatText(value=float(default) if isinstance(default, numbers.Real) else 0.0, **label)
    return widgets.Text(value="" if default is None else str(default), **label)


def option_widget(option: Option) -> OptionControl:
    """The control of one registry option (see the module's list of which control each kind of option gets).

    Examples
    --------
    >>> from torus_lab.routing import routing_entry
    >>> control = option_widget(routing_entry("pfnf").option("dateline_offset"))
    >>> control.value is None, [type(w).__name__ for w in control.widget.children]
    (True, ['IntText', 'Checkbox'])
    """
    return OptionControl(option)


class OptionsBox:
    """The controls of every option of one routing entry, in declaration order.

    Parameters
    ----------
    entry : RoutingEntry
        The registry entry (built-in or registered at run time).
    """

    def __init__(self, entry: RoutingEntry) -> None:
        self.entry = check_instance("entry", entry, RoutingEntry, "a RoutingEntry of the registry")
        self.controls: dict[str, widgets.Widget] = {}
        self._controls: dict[str, OptionControl] = {}
        for option in entry.options:
            control = option_widget(option)
            self._controls[option.name] = control
            self.controls[option.name] = control.widget
        self.widget = widgets.VBox(list(self.controls.values()) or [widgets.HTML("<i>no options</i>")])

    def values(self) -> dict[str, Any]:
        """Every option's current value, by name."""
        return {name: control.value for name, control in self._controls.items()}

    def observe(self, handler: Callable[[dict], None]) -> None:
        """Call ``handler(change)`` when any option changes."""
        for control in self._controls.values():
            control.observe(handler)

    def control(self, name: str) -> OptionControl:
        """The control of option ``name`` (ValueError listing the options when there is none)."""
        self.entry.option(name)
        return self._controls[name]
