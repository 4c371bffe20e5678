"""Just enough Markdown to show the bot authors' docs on the site (no dependency).

Headings, paragraphs, fenced code, bullet and numbered lists, tables, inline
code, bold and links. Everything is escaped first; only these forms are marked up.
"""

from __future__ import annotations

import html
import re

from django.utils.safestring import SafeString, mark_safe

_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")
# A doc named in the text, "(docs/ladders.md)": linked when the site serves it. Not inside a
# link's text or code (">" before it), nor in a URL ("/" before it).
_MENTION = re.compile(r"(?<![\w/>.-])docs/[\w/-]+\.md\b")


def _inline(text: str, link: dict[str, str]) -> str:
    out = html.escape(text, quote=False)
    out = _CODE.sub(r"<code>\1</code>", out)
    out = _BOLD.sub(r"<strong>\1</strong>", out)

    def href(m: re.Match[str]) -> str:
        path, _, fragment = m.group(2).partition("#")
        target = m.group(2)
        if path in link:  # another served doc: its page, at the same heading
            target = link[path] + (f"#{fragment}" if fragment else "")
        if not target.startswith(("http://", "https://", "/", "#")):
            return m.group(1)  # a repository path the site does not serve
        return f'<a href="{html.escape(target)}">{m.group(1)}</a>'

    def mention(m: re.Match[str]) -> str:
        target = link.get(m.group(0))
        return f'<a href="{html.escape(target)}">{m.group(0)}</a>' if target else m.group(0)

    return _MENTION.sub(mention, _LINK.sub(href, out))


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it, so that the docs' ``file.md#anchor`` links
    land on the same heading here."""
    text = re.sub(r"[^\w\- ]", "", heading.lower().replace("`", ""))
    return text.replace(" ", "-")


def render(text: str, link: dict[str, str] | None = None) -> SafeString:
    """``text`` as HTML; ``link`` maps repository paths to site URLs."""
    link = link or {}
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            block = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                block.append(lines[i])
                i += 1
            out.append(f"<pre><code>{html.escape(chr(10).join(block), quote=False)}</code></pre>")
            i += 1
            continue
        heading = re.match(r"^(#{1,4})\s+(.*)", line)
        if heading:
            level = len(heading.group(1))
            # The title needs no anchor: a link to a doc lands at its top.
            anchor = f' id="{slug(heading.group(2))}"' if level > 1 else ""
            out.append(f"<h{level}{anchor}>{_inline(heading.group(2), link)}</h{level}>")
            i += 1
            continue
        if line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                    rows.append(cells)
                i += 1
            body = "".join(
                "<tr>" + "".join(f"<td>{_inline(c, link)}</td>" for c in row) + "</tr>"
                for row in rows[1:]
            )
            head = "".join(f"<th>{_inline(c, link)}</th>" for c in rows[0]) if rows else ""
            out.append(
                f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
            )
            continue
        item = re.match(r"^\s*(?:[-*]|\d+\.)\s+(.*)", line)
        if item:
            tag = "ol" if re.match(r"^\s*\d+\.", line) else "ul"
            items = []
            while i < len(lines) and re.match(r"^\s*(?:[-*]|\d+\.)\s+", lines[i]):
                text_ = re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", lines[i])
                i += 1
                while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                    text_ += " " + lines[i].strip()
                    i += 1
                items.append(f"<li>{_inline(text_, link)}</li>")
            out.append(f"<{tag}>{''.join(items)}</{tag}>")
            continue
        if not line.strip():
            i += 1
            continue
        para = [line]
        i += 1
        while (
            i < len(lines)
            and lines[i].strip()
            and not re.match(r"^(#|```|\||\s*(?:[-*]|\d+\.)\s)", lines[i])
        ):
            para.append(lines[i])
            i += 1
        out.append(f"<p>{_inline(' '.join(para), link)}</p>")
    return mark_safe("\n".join(out))  # noqa: S308 (every input was escaped above; only our own tags are added)
