"""Storefront labels in several scripts. 🔑 数据 café — non-ASCII on purpose.

Several lines below put emoji, CJK or accented text *before* a declared name on the
same line, so the column of that name differs between UTF-8 bytes, UTF-16 code units
and code points. Keep those lines exactly as they are; tests pin their positions.
"""

from __future__ import annotations

from dataclasses import dataclass

# 🔑 key material labels (BMP-outside emoji: 2 UTF-16 units, 4 UTF-8 bytes each)
LABEL = "🔑 数据"; TOTAL_AFTER_EMOJI = 3
KEYS = "🔑🔑"; AFTER_TWO_KEYS = len(KEYS)
# 数据 means "data"; CJK is 1 UTF-16 unit and 3 UTF-8 bytes per character
DATA_LABEL = "数据"; after_cjk = DATA_LABEL * 2
NAME_FR = "café crème"; after_latin = NAME_FR.upper()
CODER = "👩‍💻"; after_zwj_sequence = len(CODER)
FRAKTUR = "𝔘𝔫𝔦𝔠𝔬𝔡𝔢"; after_math_letters = FRAKTUR.lower()
MIXED = "价格 💶 prix"; price_after_mixed = 42

GREETINGS = {
    "en": "Welcome 👋",
    "de": "Willkommen 👋",
    "fr": "Bienvenue à la boutique 🛍️",
    "ja": "いらっしゃいませ 🙇",
    "zh": "欢迎光临 🧧",
    "ko": "어서 오세요 🙌",
}

CURRENCY_NAMES = {
    "EUR": "Euro €",
    "JPY": "日本円 ¥",
    "CNY": "人民币 ¥",
    "GBP": "Pound sterling £",
}


def emoji_default(label: str = "🔑") -> str:
    """Repeat the label around a separator: ``🔑·🔑``."""
    return f"{label}·{label}"


def 计算(x: int) -> int:  # 计算 means "calculate"
    """Double ``x`` and add one. The only non-ASCII identifier in the workspace."""
    return x * 2 + 1


def greet(lang: str = "en", who: str = "数据") -> str:  # default mixes CJK 🔑
    """A greeting in ``lang`` for ``who``, falling back to English."""
    base = GREETINGS.get(lang, GREETINGS["en"])
    return f"{base}, {who}"


def badge(text: str, icon: str = "✨") -> str: return f"{icon} {text} {icon}"


class Ledger:  # 账本 🔑 — "ledger"
    """A tiny in-memory ledger with labels in any script."""

    GLYPH = "🔑"; glyph_width = 2
    TITLE = "账本"; title_width = 4

    def __init__(self, owner: str = "数据") -> None:
        self.owner = owner
        self.entries: list[tuple[str, int]] = []

    def record(self, label: str = "💶 入金", amount: int = 0) -> None:
        """Append an entry; ``amount`` is in minor units."""
        if not label:
            raise ValueError("an entry needs a label")
        self.entries.append((label, amount))

    def total(self) -> int:
        return sum(amount for _, amount in self.entries)

    def render(self) -> str:
        lines = [f"{self.GLYPH} {self.TITLE} — {self.owner}"]
        for label, amount in self.entries:
            lines.append(f"  {label:<12} {amount:>8}")
        lines.append(f"  {'合计 Σ':<12} {self.total():>8}")
        return "\n".join(lines)


def display_width(text: str) -> int:
    """Approximate terminal columns: wide (CJK, emoji) characters count as two."""
    width = 0
    for char in text:
        code = ord(char)
        if code in (0x200D, 0xFE0F):
            continue
        if code >= 0x1F000 or 0x2E80 <= code <= 0xA4CF or 0xAC00 <= code <= 0xD7A3:
            width += 2
        else:
            width += 1
    return width


def pad_label(text: str, columns: int) -> str:
    """Right-pad ``text`` with spaces to ``columns`` display columns."""
    return text + " " * max(0, columns - display_width(text))


def truncate_label(text: str, columns: int, ellipsis: str = "…") -> str:
    """Cut ``text`` to ``columns`` display columns, never splitting a character."""
    if display_width(text) <= columns:
        return text
    out, width = [], display_width(ellipsis)
    for char in text:
        w = display_width(char)
        if width + w > columns:
            break
        out.append(char)
        width += w
    return "".join(out) + ellipsis


STATUS_ICONS = {"ok": "✅", "warn": "⚠️", "fail": "❌", "key": "🔑"}; icon_count = 4
SEPARATOR = " · "; FOOTER = f"{SEPARATOR.join(STATUS_ICONS.values())} 状态"


def status_line(states: dict[str, str]) -> str:
    """``✅ build · ❌ tests`` from ``{"build": "ok", "tests": "fail"}``."""
    parts = [f"{STATUS_ICONS.get(state, '?')} {name}" for name, state in states.items()]
    return SEPARATOR.join(parts)


def utf16_length(text: str) -> int:
    """How many UTF-16 code units ``text`` needs (what LSP counts by default)."""
    return len(text.encode("utf-16-le")) // 2


def utf8_length(text: str) -> int:
    """How many UTF-8 bytes ``text`` needs."""
    return len(text.encode("utf-8"))


@dataclass(frozen=True)
class Label:
    text: str = "🔑 key"  # astral emoji in a default
    lang: str = "en"

    def columns(self) -> int:
        return display_width(self.text)

    def describe(self) -> str:
        return (f"{self.text!r}: {len(self.text)} code points, "
                f"{utf16_length(self.text)} UTF-16 units, {utf8_length(self.text)} bytes")


def label_table(labels: list[Label]) -> str:
    """A fixed-width table of labels, aligned by display width, not by len()."""
    width = max((lbl.columns() for lbl in labels), default=0)
    rows = [pad_label("label", width) + " | lang"]
    rows.append("-" * width + "-+-----")
    for lbl in labels:
        rows.append(f"{pad_label(lbl.text, width)} | {lbl.lang}")
    return "\n".join(rows)


SAMPLE_LABELS = [Label("🔑 key"), Label("数据 data", "zh"), Label("café", "fr"), Label("👩‍💻 dev")]
SUMMARY = "✅ 完成"; summary_after = label_table(SAMPLE_LABELS)
