"""POST /v1/sql with Python's http.client, as Spice users' scripts do: the shared helper of the
pod and catalog cases."""

import http.client
import urllib.parse


def post_sql(base, sql, accept="application/json"):
    """The status and decoded body of POST {base}/v1/sql with the SQL text as the body."""
    url = urllib.parse.urlparse(base)
    client = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    try:
        client.request("POST", "/v1/sql", body=sql.encode(), headers={"Accept": accept, "Content-Type": "text/plain"})
        response = client.getresponse()
        return response.status, response.read().decode()
    finally:
        client.close()
