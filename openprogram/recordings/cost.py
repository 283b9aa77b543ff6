"""What a call cost, from the price table of `genai-prices` (the optional extra `cost`).

Prices come from the table bundled with the installed `genai-prices` release, never from the
network (its updater is never started), at the date the call was made. A model the table does not
know has no cost (None), never a guessed one; without the extra every cost is None.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from importlib import metadata
from typing import TYPE_CHECKING, Any

from openprogram.providers.types import Usage

if TYPE_CHECKING:
    from genai_prices.types import PriceCalculation

PRICES_PACKAGE = "genai-prices"
PRICE_TABLE_DATES = {"0.2.3": "2026-11-10"}
"""When each `genai-prices` release this project pins was published (PyPI's upload time): its
bundled table holds the prices known that day. The package itself carries no date, and prices are
never fetched, so the date of a release not listed here is not known."""


@dataclass(frozen=True, slots=True)
class TokenCounts:
    """A call's tokens by kind, as its answer's `Usage` says (or a session's sums), kept compact:
    what a call is priced on, and what the readers keep of every call (its numbers, its diffed
    answer, its prompt-cache facts); a pydantic `Usage` costs ~1.1 KB (its fields-set alone
    728 B), more than a call of a small file's rows take; these six ints cost ~100 B."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    reasoning: int | None = None
    """Of `output`, the tokens spent reasoning, when the vendor says."""

    @classmethod
    def total(cls, counts: Iterable[TokenCounts | None]) -> TokenCounts:
        """The sums of `counts` (None: a call without an answer); reasoning when any says it.
        A sum may pass one call's bounds: it is not a `Usage`, which validates them."""
        found = [count for count in counts if count is not None]
        reasoning = [count.reasoning for count in found if count.reasoning is not None]
        return cls(
            sum(count.input for count in found),
            sum(count.output for count in found),
            sum(count.cache_read for count in found),
            sum(count.cache_write for count in found),
            sum(count.total_tokens for count in found),
            sum(reasoning) if reasoning else None,
        )

    @classmethod
    def of(cls, usage: Usage) -> TokenCounts:
        return cls(
            usage.input,
            usage.output,
            usage.cache_read,
            usage.cache_write,
            usage.total_tokens,
            usage.reasoning,
        )


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


def call_cost(
    usage: TokenCounts, model: dict[str, Any], at_ms: int | None = None
) -> Decimal | None:
    """The price in US dollars of one call's `usage` for the recorded `model` (its `id`,
    `provider` and `base_url`), at the time `at_ms` (Unix ms) when given; None when unknown."""
    if price_table() is None:
        return None
    model_ref = str(model.get("id") or "")
    provider, base_url = str(model.get("provider") or ""), str(model.get("base_url") or "")
    if not _in_table(model_ref, provider, base_url):
        return None
    when = datetime.fromtimestamp(at_ms / 1000, UTC) if at_ms else None
    try:
        priced = _calc(usage, model_ref, provider, base_url, when)
    except (LookupError, ValueError):
        return None
    return Decimal(priced.total_price)


@functools.lru_cache(maxsize=1024)
def _in_table(model_ref: str, provider: str, base_url: str) -> bool:
    """False when the table does not know the model's names (a local or custom model): such a
    model is not searched for again at every call of a session (a search of every provider's
    models, 80 µs a call). The names alone decide it, not the date or the tokens."""
    try:
        _calc(TokenCounts(), model_ref, provider, base_url, None)
    except LookupError:
        return False
    except ValueError:
        pass  # known, and each call says what it costs
    return True


def _calc(
    usage: TokenCounts, model_ref: str, provider: str, base_url: str, when: datetime | None
) -> PriceCalculation:
    import genai_prices

    prices_usage = genai_prices.Usage(
        input_tokens=usage.input + usage.cache_read + usage.cache_write,
        cache_read_tokens=usage.cache_read,
        cache_write_tokens=usage.cache_write,
        output_tokens=usage.output,
    )
    if provider:  # the provider's name is what the table keys on; its URL otherwise
        return genai_prices.calc_price(
            prices_usage, model_ref, provider_id=provider, genai_request_timestamp=when
        )
    return genai_prices.calc_price(
        prices_usage, model_ref, provider_api_url=base_url, genai_request_timestamp=when
    )


def format_cost(cost: Decimal | None) -> str:
    """`$0.0042`, or `–` when unknown."""
    if cost is None:
        return "–"
    return f"${cost:.4f}" if cost >= Decimal("0.0001") or cost == 0 else f"${cost:.2e}"
