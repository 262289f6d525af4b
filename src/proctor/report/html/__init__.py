"""The HTML report (one self-contained file per run) and the pages of `proctor view`.

Pure like the rest of `report`: values in, HTML out. Charts are inline SVG drawn in Python; the
sample browser is a small script over a JSON document embedded in the page; model output is
always text, never markup.
"""

from proctor.report.html.page import content_security_policy
from proctor.report.html.report_page import Links, report_html, samples_html
from proctor.report.html.viewer_pages import RunListing, RunView, compare_html, runs_html

__all__ = [
    "Links",
    "RunListing",
    "RunView",
    "compare_html",
    "content_security_policy",
    "report_html",
    "runs_html",
    "samples_html",
]
