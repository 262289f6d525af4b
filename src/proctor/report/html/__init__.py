"""The HTML report (one self-contained file per run) and the pages of `proctor view`.

Pure like the rest of `report`: values in, HTML out. Charts are inline SVG drawn in Python; the
sample browser is a small script over a JSON document embedded in the page; model output is
always text, never markup.
"""

from typing import TYPE_CHECKING

from proctor._util.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from proctor.report.html.page import content_security_policy
    from proctor.report.html.report_page import Links, report_html, samples_html
    from proctor.report.html.viewer_pages import RunListing, compare_html, runs_html

__all__ = [
    "Links",
    "RunListing",
    "compare_html",
    "content_security_policy",
    "report_html",
    "runs_html",
    "samples_html",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "content_security_policy": ".page",
        "Links": ".report_page",
        "report_html": ".report_page",
        "samples_html": ".report_page",
        "RunListing": ".viewer_pages",
        "compare_html": ".viewer_pages",
        "runs_html": ".viewer_pages",
    },
)
