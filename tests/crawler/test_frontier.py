"""The crawl's frontier: breadth-first, with generated index and search pages after the content of their depth."""

from crawler.frontier import Frontier, page_name


def drain(frontier: Frontier) -> list[str]:
    return [frontier.pop()[0] for _ in range(len(frontier))]


def test_page_names_are_what_generators_call_their_pages():
    assert page_name("https://docs.example/en/3.1/genindex.html") == "genindex"
    assert page_name("https://docs.example/search/index.html") == page_name("https://docs.example/search/") == "search"
    assert page_name("https://docs.example/Py-ModIndex.html?x=1") == "py-modindex"
    assert page_name("https://docs.example/") == page_name("https://docs.example/index.html") == ""


def test_generated_looking_urls_wait_for_the_content_of_their_depth_not_for_deeper_pages():
    frontier = Frontier()
    for url, depth in [("/genindex.html", 1), ("/search.html", 1), ("/quickstart.html", 1), ("/genindex-A.html", 1),
                       ("/api.html", 1), ("/tutorial/index.html", 2)]:
        frontier.push(f"https://d.example{url}", depth)
    order = [url for url, _ in frontier]  # what the report lists as not fetched, in this order
    assert drain(frontier) == order == [f"https://d.example{url}" for url in [
        "/quickstart.html", "/api.html", "/genindex.html", "/search.html", "/genindex-A.html", "/tutorial/index.html"]]


def test_a_page_recognised_as_generated_sends_others_of_its_name_back():
    frontier = Frontier()
    for url in ["/v2/all-pages.html", "/v2/guide.html", "/v3/all-pages/", "/v3/guide.html"]:
        frontier.push(f"https://d.example{url}", 2)
    frontier.learn("https://d.example/v1/all-pages.html")  # the crawl found it almost all links
    frontier.push("https://d.example/v4/all-pages.html", 2)
    frontier.push("https://d.example/v4/guide.html", 2)
    assert drain(frontier) == [f"https://d.example{url}" for url in [
        "/v2/guide.html", "/v3/guide.html", "/v4/guide.html", "/v2/all-pages.html", "/v3/all-pages/",
        "/v4/all-pages.html"]]
