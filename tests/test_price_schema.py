"""The price_calculator tool's JSON schema and CalcRequest describe the same request, field by field."""

from __future__ import annotations

import copy
import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any

from hwqa.answer.pricetool import PRICE_CALCULATOR_TOOL
from hwqa.prices import CalcRequest
from hwqa.prices.table import HARDWARE_TYPES

SCHEMA: dict[str, Any] = PRICE_CALCULATOR_TOOL["function"]["parameters"]
_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string"}


def json_type(hint: Any) -> dict[str, Any]:
    """The JSON-schema type a field annotation stands for (``None`` in a union means "may be left out")."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        (hint,) = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) is typing.Literal:
        return {"type": "string", "enum": list(typing.get_args(hint))}
    if typing.get_origin(hint) is tuple:
        item, ellipsis = typing.get_args(hint)
        assert ellipsis is Ellipsis, hint
        return {"type": "array", "items": json_type(item)}
    return {"type": _JSON_TYPES[hint]}


def _declared(prop: Mapping[str, Any]) -> dict[str, Any]:
    """A schema property reduced to its type (and item type, and enum): bounds and descriptions aside."""
    out = {k: prop[k] for k in ("type", "enum") if k in prop}
    if "items" in prop:
        out["items"] = _declared(prop["items"])
    return out


def schema_mismatches(request_type: type, schema: Mapping[str, Any]) -> list[str]:
    """Every way the dataclass ``request_type`` and the tool's parameter schema disagree."""
    properties: Mapping[str, Any] = schema["properties"]
    fields = {f.name: f for f in dataclasses.fields(request_type)}
    hints = typing.get_type_hints(request_type)
    problems = [f"{name}: a field of {request_type.__name__} that the schema lacks" for name in fields.keys() - properties.keys()]
    problems += [f"{name}: a schema property {request_type.__name__} lacks" for name in properties.keys() - fields.keys()]
    required = {
        name for name, f in fields.items() if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    declared_required = sorted(schema.get("required", []))
    if sorted(required) != declared_required:
        problems.append(f"required: {sorted(required)} in {request_type.__name__}, {declared_required} in the schema")
    for name in sorted(fields.keys() & properties.keys()):
        expected, declared = json_type(hints[name]), _declared(properties[name])
        if expected != declared:
            problems.append(f"{name}: {expected} in {request_type.__name__}, {declared} in the schema")
    if schema.get("additionalProperties") is not False:
        problems.append("the schema allows properties that are not fields")
    return sorted(problems)


def test_the_tool_schema_and_calc_request_agree_field_by_field() -> None:
    assert schema_mismatches(CalcRequest, SCHEMA) == []
    assert SCHEMA["properties"]["types"]["items"]["enum"] == list(HARDWARE_TYPES)


@dataclasses.dataclass(frozen=True)
class _RequestWithRegion(CalcRequest):
    region: str | None = None


def test_a_field_added_to_one_side_only_is_caught() -> None:
    assert schema_mismatches(_RequestWithRegion, SCHEMA) == ["region: a field of _RequestWithRegion that the schema lacks"]
    schema = copy.deepcopy(SCHEMA)
    schema["properties"]["spot_only"] = {"type": "boolean", "description": "Only spot prices."}
    assert schema_mismatches(CalcRequest, schema) == ["spot_only: a schema property CalcRequest lacks"]


def test_a_type_or_enum_changed_on_one_side_only_is_caught() -> None:
    schema = copy.deepcopy(SCHEMA)
    schema["properties"]["devices"]["type"] = "number"
    schema["properties"]["types"]["items"]["enum"] = ["gpu", "tpu"]
    schema["properties"]["compare"]["type"] = "string"
    schema["required"] = ["budget_usd"]
    problems = schema_mismatches(CalcRequest, schema)
    assert [p.split(":")[0] for p in problems] == ["compare", "devices", "required", "types"]
