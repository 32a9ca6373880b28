"""What the app's pages share: session state and the sidebar (:mod:`.session`,
:mod:`.track_session`; every session-state key named once in :mod:`.state_keys`), the
current data set (:mod:`.current_data`), reusable page parts (:mod:`.components`),
downloads and report buttons, the Markdown guard, accessibility and touch helpers, and the
Map's Leaflet component (:mod:`.track_map` with ``track_map.js``).

The pages themselves are in ``app_pages/``; ``app.py`` routes between them. See
``docs/architecture.md``.
"""
