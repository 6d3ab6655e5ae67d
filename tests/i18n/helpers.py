"""What the translation tests share: the text a person sees on a page, and English UI words."""

import re
from html.parser import HTMLParser

# Words of the portal's own pages, forms, menus and messages that must not remain in English on a
# Russian page. Test data is Russian, so any of these on a Russian page is an unmarked string.
# (Technical names stay as they are: URL, API, JSON, SHA-256, embedder and retriever names.)
ENGLISH_UI_WORDS = [
    "Add", "Agent", "Agents", "Answer", "Answers", "Approve", "Back", "Cancel", "Change", "Chunk", "Chunks",
    "Closest", "Confidence", "Contents", "Counters", "Crawl", "Customer", "Dates", "Delete", "Dimension",
    "Distance", "Document", "Documents", "Draft", "Drop", "Edit", "Embedder", "Error", "Extracted", "Failed",
    "Failures", "File", "Files", "Follow", "Grounded", "Heading", "Hits", "Home", "Inbox", "Index", "Internal",
    "Item", "Job", "Jobs", "Knowledge", "Language", "Last", "Layer", "Metadata", "Never", "No", "None", "Note",
    "Nothing", "Options", "Outcome", "Page", "Pending", "Please", "Portal", "Problem", "Progress", "Questions",
    "Ready", "Reason", "Reasons", "Recent", "Refused", "Reject", "Reply", "Respect", "Retry", "Risk", "Score",
    "Search", "Send", "Size", "Source", "Sources", "Started", "Status", "Step", "Stay", "Supported",
    "Threshold", "Ticket", "Tickets", "Tokens", "Trace", "Triage", "Untitled", "Upload", "Why", "Write", "Yes",
    "ago", "by", "chunks", "documents", "from", "never", "refused", "the", "via", "with",
]
WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z'-]*(?![A-Za-z0-9])")  # a word, not letters inside an id


class VisibleText(HTMLParser):
    """Text nodes outside <script>/<style>, and the attributes people read (buttons, hints)."""

    # (Not `alt`: Django's own search icon says alt="Search" in every language.)
    READ_ATTRIBUTES = {"placeholder", "title", "aria-label"}

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "code", "pre", "noscript"):
            self._skip += 1
        attributes = dict(attrs)
        for name in self.READ_ATTRIBUTES & attributes.keys():
            self.parts.append(attributes[name] or "")
        if tag == "input" and attributes.get("type") in ("submit", "button"):
            self.parts.append(attributes.get("value") or "")

    def handle_endtag(self, tag):
        if tag in ("script", "style", "code", "pre", "noscript") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


# Names a reader types as they are: template placeholders ({reply}) and quoted field or column
# names ("source_uri") are not words to translate.
PLACEHOLDER = re.compile(r'\{\w+\}|"[\w:<>]+"')


def visible_text(html: str) -> str:
    """What a reader sees, without the names of PLACEHOLDER."""
    parser = VisibleText()
    parser.feed(html)
    return PLACEHOLDER.sub(" ", " ".join(" ".join(parser.parts).split()))


def english_words(text: str) -> list[str]:
    """The known English UI words present in `text` (whole words, as written)."""
    known = set(ENGLISH_UI_WORDS)
    return sorted({word for word in WORD.findall(text) if word in known or word.capitalize() in known})
