"""What a call cost, from the price table of `genai-prices` (the optional extra `cost`).

Prices come from the table bundled with the installed `genai-prices` release, never from the
network (its updater is never started), at the date the call was made. A model the table does not
know has no cost (None), never a guessed one; without the extra every cost is None.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from decimal import Decimal
from importlib import metadata
from typing import Any

from openprogram.providers.types import Usage

PRICES_PACKAGE = "genai-prices"
PRICE_TABLE_DATES = {"0.2.3": "2026-11-10"}
"""When each `genai-prices` release this project pins was published (PyPI's upload time): its
bundled table holds the prices known that day. The package itself carries no date, and prices are
never fetched, so the date of a release not listed here is not known."""


@functools.cache
def price_table() -> str | None:
    """`genai-prices 0.2.3 (bundled price table of 2026-11-10)`, or None when the extra is not
    installed; `… (bundled price table, date not known)` for a release not in `PRICE_TABLE_DATES`."""
    try:
        version = metadata.version(PRICES_PACKAGE)
    except metadata.PackageNotFoundError:
        return None
    date = PRICE_TABLE_DATES.get(version)
    when = f" of {date}" if date is not None else ", date not known"
    return f"{PRICES_PACKAGE} {version} (bundled price table{when})"


def call_cost(usage: Usage, model: dict[str, Any], at_ms: int | None = None) -> Decimal | None:
    """The price in US dollars of one call's `usage` for the recorded `model` (its `id`,
    `provider` and `base_url`), at the time `at_ms` (Unix ms) when given; None when unknown."""
    if price_table() is None:
        return None
    import genai_prices

    prices_usage = genai_prices.Usage(
        input_tokens=usage.input + usage.cache_read + usage.cache_write,
        cache_read_tokens=usage.cache_read,
        cache_write_tokens=usage.cache_write,
        output_tokens=usage.output,
    )
    when = datetime.fromtimestamp(at_ms / 1000, UTC) if at_ms else None
    model_ref = str(model.get("id") or "")
    provider, base_url = model.get("provider"), model.get("base_url")
    try:
        if provider:  # the provider's name is what the table keys on; its URL otherwise
            priced = genai_prices.calc_price(
                prices_usage, model_ref, provider_id=str(provider), genai_request_timestamp=when
            )
        else:
            priced = genai_prices.calc_price(
                prices_usage,
                model_ref,
                provider_api_url=str(base_url or ""),
                genai_request_timestamp=when,
            )
    except (LookupError, ValueError):
        return None
    return Decimal(priced.total_price)


def format_cost(cost: Decimal | None) -> str:
    """`$0.0042`, or `–` when unknown."""
    if cost is None:
        return "–"
    return f"${cost:.4f}" if cost >= Decimal("0.0001") or cost == 0 else f"${cost:.2e}"
