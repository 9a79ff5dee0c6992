"""voices.search (GET /v2/voices). Parameters: {"queries": {name: kwargs}, "page_size": n for the
walk through every page by next_page_token}"""

from sdk_steps import client, params, run

p = params()
el = client()


def all_pages():
    pages = []
    token = None
    while True:
        page = el.voices.search(page_size=p["page_size"], next_page_token=token)
        pages.append({"voice_ids": [v.voice_id for v in page.voices], "has_more": page.has_more, "total_count": page.total_count, "next_page_token": page.next_page_token})
        token = page.next_page_token
        if not page.has_more or len(pages) > 100:
            return pages


run([("all_pages", all_pages), *[(name, (lambda kw=kw: el.voices.search(**kw))) for name, kw in p["queries"].items()]])
