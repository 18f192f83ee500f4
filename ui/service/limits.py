"""The service's default request limits, in one place: `thinkpath serve`'s settings, the API and
the app read them from here. No imports, so that the command line can read them for free."""

# A request body above this is refused with 413 before it is read whole
# (`security.BodySizeLimit`), so that no client can make the service buffer an unbounded body;
# `THINKPATH_MAX_BODY_BYTES` changes it for `thinkpath serve`.
MAX_BODY_BYTES = 64 * 1024
