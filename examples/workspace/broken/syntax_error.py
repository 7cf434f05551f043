"""Order import helpers, caught mid-edit.

``summarise_batch`` below was left half-written by an interrupted edit: it has an
unclosed parenthesis, so this module does not parse. Everything around it is intact.
Kept in the example workspace on purpose, to exercise parse-error handling.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

REQUIRED_COLUMNS = ("order_id", "sku", "quantity", "unit_price", "currency")
MAX_ROWS = 50_000
DELIMITERS = (",", ";", "\t")


@dataclass(frozen=True)
class ImportedLine:
    order_id: str
    sku: str
    quantity: int
    unit_price: Decimal
    currency: str


@dataclass
class ImportProblem:
    row: int
    column: str
    message: str


def sniff_delimiter(sample: str) -> str:
    """The delimiter that splits the header into the most columns."""
    first_line = sample.splitlines()[0] if sample else ""
    best, best_count = ",", 0
    for delimiter in DELIMITERS:
        count = len(first_line.split(delimiter))
        if count > best_count:
            best, best_count = delimiter, count
    return best


def check_header(header: list[str]) -> list[str]:
    """The required columns missing from ``header`` (case and spacing ignored)."""
    present = {name.strip().lower() for name in header}
    return [name for name in REQUIRED_COLUMNS if name not in present]


def parse_quantity(text: str) -> int:
    value = int(text.strip())
    if value <= 0:
        raise ValueError(f"quantity must be positive, got {value}")
    return value


def parse_price(text: str) -> Decimal:
    cleaned = text.strip().replace(" ", "")
    if cleaned.count(",") == 1 and "." not in cleaned:
        cleaned = cleaned.replace(",", ".")
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        raise ValueError(f"not a price: {text!r}") from None
    if value < 0:
        raise ValueError(f"price must not be negative, got {value}")
    return value


def parse_rows(text: str) -> tuple[list[ImportedLine], list[ImportProblem]]:
    """Parse an uploaded CSV into lines, collecting problems instead of stopping."""
    reader = csv.reader(io.StringIO(text), delimiter=sniff_delimiter(text))
    header = [name.strip().lower() for name in next(reader, [])]
    missing = check_header(header)
    if missing:
        return [], [ImportProblem(0, name, "missing column") for name in missing]
    column = {name: header.index(name) for name in REQUIRED_COLUMNS}
    lines: list[ImportedLine] = []
    problems: list[ImportProblem] = []
    for number, row in enumerate(reader, start=1):
        if number > MAX_ROWS:
            problems.append(ImportProblem(number, "", f"more than {MAX_ROWS} rows"))
            break
        try:
            lines.append(ImportedLine(
                order_id=row[column["order_id"]].strip(),
                sku=row[column["sku"]].strip().upper(),
                quantity=parse_quantity(row[column["quantity"]]),
                unit_price=parse_price(row[column["unit_price"]]),
                currency=row[column["currency"]].strip().upper(),
            ))
        except (ValueError, IndexError) as exc:
            problems.append(ImportProblem(number, "", str(exc)))
    return lines, problems


def currencies_in(lines: list[ImportedLine]) -> list[str]:
    """The distinct currencies in a batch, sorted."""
    return sorted({line.currency for line in lines})


def summarise_batch(lines: list[ImportedLine]) -> dict[str, Decimal]:
    """Value of the batch per currency."""
    totals: dict[str, Decimal] = {}
    for line in lines:
        subtotal = (line.unit_price * line.quantity
        totals[line.currency] = totals.get(line.currency, Decimal(0)) + subtotal
    return totals


def group_by_order(lines: list[ImportedLine]) -> dict[str, list[ImportedLine]]:
    """Lines keyed by order id, in first-seen order."""
    orders: dict[str, list[ImportedLine]] = {}
    for line in lines:
        orders.setdefault(line.order_id, []).append(line)
    return orders


def mixed_currency_orders(lines: list[ImportedLine]) -> list[str]:
    """Orders whose lines disagree about currency; these are rejected downstream."""
    result = []
    for order_id, order_lines in group_by_order(lines).items():
        if len({line.currency for line in order_lines}) > 1:
            result.append(order_id)
    return result


def duplicate_lines(lines: list[ImportedLine]) -> list[tuple[str, str]]:
    """(order_id, sku) pairs that appear more than once."""
    seen: set[tuple[str, str]] = set()
    duplicates: list[tuple[str, str]] = []
    for line in lines:
        key = (line.order_id, line.sku)
        if key in seen and key not in duplicates:
            duplicates.append(key)
        seen.add(key)
    return duplicates


def largest_lines(lines: list[ImportedLine], limit: int = 5) -> list[ImportedLine]:
    """The lines with the highest value, for a sanity check before import."""
    ranked = sorted(lines, key=lambda line: line.unit_price * line.quantity, reverse=True)
    return ranked[:limit]


def split_batches(lines: list[ImportedLine], size: int = 500) -> list[list[ImportedLine]]:
    """Chunks of at most ``size`` lines that never split one order across chunks."""
    batches: list[list[ImportedLine]] = []
    current: list[ImportedLine] = []
    for order_lines in group_by_order(lines).values():
        if current and len(current) + len(order_lines) > size:
            batches.append(current)
            current = []
        current.extend(order_lines)
    if current:
        batches.append(current)
    return batches


def format_problems(problems: list[ImportProblem], limit: int = 20) -> str:
    """A short human-readable list of problems for the upload page."""
    if not problems:
        return "No problems found."
    shown = [
        f"row {p.row}: {p.column + ': ' if p.column else ''}{p.message}"
        for p in problems[:limit]
    ]
    if len(problems) > limit:
        shown.append(f"... and {len(problems) - limit} more")
    return "\n".join(shown)


def import_report(text: str) -> str:
    """Parse an upload and describe the outcome in one block of text."""
    lines, problems = parse_rows(text)
    parts = [f"{len(lines)} line(s) parsed, {len(problems)} problem(s)."]
    mixed = mixed_currency_orders(lines)
    if mixed:
        parts.append("Mixed currencies in: " + ", ".join(mixed))
    duplicates = duplicate_lines(lines)
    if duplicates:
        parts.append("Duplicate lines: " + ", ".join(f"{o}/{s}" for o, s in duplicates))
    parts.append(format_problems(problems))
    return "\n".join(parts)
