"""Debian's Chromium, headless and quiet: the one browser the tests and the docs' screenshots use.

Playwright drives it (`executable_path=CHROMIUM`) without downloading a browser of its own;
`scripts/test` installs it with apt where it is missing. The flags keep Chromium from reaching
the network on its own (shared/OFFLINE.md): only loopback resolves.
"""

import shutil

__all__ = ["CHROMIUM", "QUIET_FLAGS"]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
QUIET_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-features=DnsOverHttps",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
