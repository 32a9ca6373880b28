"""The download section of the Timeline, Map and Compare pages: publishable files first,
confidential files behind a clearly labelled expander.

* **Publishable** (the default): the released values only (``lmdk_release_*`` files,
  built by :mod:`lmdk_core.files.export`) and the public release note
  (:mod:`lmdk_core.report.release_note`).
* **Confidential** (:data:`~lmdk_core.files.export.CONFIDENTIAL_LABEL`): the audit table, the
  configuration with the data embedded or by reference (name + SHA-256; it still holds
  the landmarks and the seed), and the internal privacy report. Every such button and
  file name says CONFIDENTIAL.

The SHA-256 of every uploaded file is remembered (:func:`remember_upload`) so that a
configuration can reference it; :func:`referenced_or_pending` resolves such a
configuration on restore.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import streamlit as st

from app_support import state_keys as K
from app_support.app_settings import current_settings, set_setting
from app_support.report_button import (
    TEACHING_HELP,
    internal_report_button,
    release_note_button,
)
from app_support.track_region import declared_region, exact_track_release
from lmdk_core.data.digest import array_digest
from lmdk_core.data.series import Series
from lmdk_core.data.track import Track
from lmdk_core.decision.mechanism_choice import mechanism_problems
from lmdk_core.engine.release import Release, release_series
from lmdk_core.figures.release_map import released_track_map_html
from lmdk_core.files.config import ViewConfig, config_from_json, config_to_json, restored_view
from lmdk_core.files.data_reference import (
    attach_referenced_data,
    embedded_table,
    reference_config,
    sha256_hex,
)
from lmdk_core.files.export import (
    CONFIDENTIAL_LABEL,
    PLANAR_NOISE,
    confidential_filename,
    geojson_text,
    mechanism_text,
    noise_text,
    planar_noise_text,
    publishable_filename,
    series_audit_csv,
    series_publishable_csv,
    teaching_filename,
    teaching_note,
    trajectory_audit_csv,
    trajectory_geojson,
    trajectory_publishable_csv,
    trajectory_publishable_geojson,
)
from lmdk_core.foundation.errors import InputError
from lmdk_core.foundation.quoting import quote_user_text

__all__ = ["RESTORE_HELP", "confidential_downloads", "pending_reference", "referenced_or_pending",
           "remember_upload", "series_downloads", "track_downloads"]

#: what restoring a saved view does, on the configuration's download button and uploader:
#: the noise is never the saved one (:func:`app_support.session.restore_seed`)
RESTORE_HELP = ("Restores the view's data, landmarks and settings. The noise is drawn "
                "afresh (a new random seed), so the released values differ from the "
                "saved view's; only a configuration saved in the teaching mode restores "
                "its fixed seed, with the teaching mode on.")

PUBLISHABLE_HELP = ("Publishable: the released values only (time and released value), with "
                    "a short header stating ε, the scheme, the mechanism and the noise "
                    "sampler. No raw values, no landmarks, no per-timestamp ε, no seed.")


#: what a reload keeps and how to come back to an uploaded view (docs/app.md)
RELOAD_NOTE = (":material/restart_alt: **A reload keeps this view in this tab.** The "
               "settings come back from the URL; this upload, its landmarks and Δf from the "
               "app's memory, kept for this tab only (a random key in the tab, never in the "
               "URL or on disk) for {minutes} minutes after your last change. A new tab "
               "starts afresh. To return to this view later or elsewhere, download "
               "**CONFIDENTIAL — Configuration with the data (JSON)** below and upload it "
               "here: data, landmarks and settings in one step.")
#: the same note once "Forget this tab's data" was clicked
FORGOTTEN_NOTE = (":material/restart_alt: **A reload starts afresh:** this tab's data are no "
                  "longer kept in the app's memory. To return to this view later, download "
                  "**CONFIDENTIAL — Configuration with the data (JSON)** below and upload it "
                  "here.")


def reload_note(is_upload: bool, key: str) -> None:
    """Under the upload box of the Timeline and the Map, while an uploaded file is the
    current data: what a reload keeps and how to restore it (:data:`RELOAD_NOTE`), and
    a button that forgets the tab's kept view (:mod:`app_support.tab_memory`)."""
    from app_support.tab_memory import KEEP_MINUTES, forget_this_tab, keeping_this_tab

    if not is_upload:
        return
    if not keeping_this_tab():
        st.caption(FORGOTTEN_NOTE)
        return
    st.caption(RELOAD_NOTE.format(minutes=KEEP_MINUTES))
    st.button("Forget this tab's data", key=key, on_click=forget_this_tab,
              icon=":material/delete:",
              help="Drops this tab's data and landmarks from the app's memory now: a "
                   "reload then starts afresh with the demo data. What is on the page "
                   "stays until then.")


# ---------------------------------------------------------------- uploads and references
def remember_upload(dataset_name: str, filename: str, data: bytes) -> None:
    """Remember the file name and SHA-256 of the upload registered as ``dataset_name``."""
    st.session_state.setdefault(K.DATA_FILES, {})[dataset_name] = {
        "name": filename, "sha256": sha256_hex(data)}


def _uploaded_file(dataset_name: str) -> dict | None:
    return st.session_state.get(K.DATA_FILES, {}).get(dataset_name)


def pending_reference(kind: str) -> ViewConfig | None:
    """A restored configuration of ``kind`` waiting for its referenced data file."""
    return st.session_state.get(K.pending_reference_key(kind))


def referenced_or_pending(cfg: ViewConfig, kind: str,
                          datasets: dict[str, Series | Track]) -> ViewConfig | None:
    """A configuration ready to restore: unchanged unless it references its data file.
    Then the data come from an upload of this session with the same SHA-256, or, when
    none has it, the configuration is kept as pending (None is returned) and the page
    asks for the file (:func:`reference_uploader`)."""
    if cfg.dataset != "file":
        return cfg
    want = cfg.file_reference()["sha256"].lower()
    for name, info in st.session_state.get(K.DATA_FILES, {}).items():
        if info["sha256"] == want and name in datasets:
            out = copy.deepcopy(cfg)
            out.dataset, out.data_file = "embedded", None
            out.data = embedded_table(datasets[name])
            out.time_kind = datasets[name].time_kind
            return out.validate()
    st.session_state[K.pending_reference_key(kind)] = cfg
    return None


def restore_uploaded_config(widget_key: str, kind: str) -> None:
    """The configuration uploader's callback: restore the JSON file now in
    ``widget_key`` as a view of ``kind`` (:func:`restore_config`)."""
    f = st.session_state.get(widget_key)
    if f is not None:
        restore_config(f.getvalue(), f.name, kind)


def reference_uploader(kind: str, key: str) -> None:
    """When a restored configuration waits for its data file: say which file, and offer
    an uploader; the file is checked against the SHA-256 (a mismatch is an error that
    changes nothing) and then the view is restored (:func:`restore_config`)."""
    cfg = pending_reference(kind)
    if cfg is None:
        return
    error_key = _restore_target(kind).error_key

    def _on_data() -> None:
        f = st.session_state.get(key)
        pending = pending_reference(kind)
        if f is None or pending is None:
            return
        try:
            ready = attach_referenced_data(pending, f.getvalue(), f.name)
        except Exception as exc:  # InputError or a loader's message: never a traceback
            st.session_state[error_key] = (f"Could not restore the view with "
                                           f"{quote_user_text(f.name)}: {exc}. Nothing was "
                                           "changed.")
            return
        st.session_state.pop(K.pending_reference_key(kind), None)
        st.session_state[error_key] = None
        remember_upload("Restored: " + f.name, f.name, f.getvalue())
        restore_config(ready, f.name, kind)

    ref = cfg.file_reference()
    st.info(f"The configuration refers to its data file {quote_user_text(ref['name'])} "
            f"(SHA-256 `{ref['sha256'][:16]}…`) instead of containing it. Upload that file "
            "to restore the view; a different file is refused.", icon=":material/link:")
    st.file_uploader("Data file of the restored view", key=key, on_change=_on_data,
                     type=["csv", "txt"] if kind == "series" else ["csv", "txt", "gpx", "plt"])


@dataclass(frozen=True)
class _RestoreTarget:
    """Where a restored configuration of one kind of data goes: the page's error key, its
    data sets and demo, how a restored data set is added and selected."""

    kind: str
    error_key: str
    sets_key: str
    demo_name: str
    demo_key: str
    check_data: Callable | None
    add: Callable
    select: Callable  # (name, view) -> None: select the data set, set its landmarks

    @property
    def datasets(self) -> dict:
        return st.session_state[self.sets_key]


def _select_series(name: str, view) -> None:
    from app_support import session
    from lmdk_core.engine.stay_events import stay_members

    st.session_state[K.W_SERIES_NAME] = name
    # a run's readings are landmarks too (docs/series-events.md)
    session.set_series_landmarks([*view.landmarks, *stay_members(view.stays).tolist()], name)
    session.set_series_runs(view.stays, name)


def _select_track(name: str, view) -> None:
    from app_support import track_session

    st.session_state[K.W_TRACK_NAME] = name
    track_session.set_track_landmarks(view.landmarks, name)
    track_session.set_track_stays(view.stays, name)


def _restore_target(kind: str) -> _RestoreTarget:
    from app_support import session, track_session

    if kind == "series":
        return _RestoreTarget("series", "upload_error", K.SERIES_SETS, session.DEMO_SERIES,
                              "demo-household", None, session.add_series, _select_series)
    return _RestoreTarget("track", "track_upload_error", K.TRACK_SETS,
                          track_session.DEMO_TRACK, track_session.DEMO_TRACK_KEY,
                          track_session.check_track_size, track_session.add_track,
                          _select_track)


def _checked_view(source: bytes | ViewConfig, target: _RestoreTarget):
    """(configuration, its checked view), or None while the referenced data file is
    awaited; InputError when anything is wrong."""

    cfg = config_from_json(source) if isinstance(source, bytes) else source
    if cfg.data_kind != target.kind:
        raise InputError("this configuration is for a trajectory; open it on the Map page"
                         if target.kind == "series" else "this configuration is for a time "
                         "series; open it on the Timeline page")
    ready = referenced_or_pending(cfg, target.kind, target.datasets)
    if ready is None:  # the page asks for the data file (reference_uploader)
        return None
    cfg = ready
    st.session_state.pop(K.pending_reference_key(target.kind), None)
    return cfg, restored_view(cfg, target.demo_key, target.datasets[target.demo_name],
                              default_cell_size=current_settings().cell_size,
                              check_data=target.check_data)


def restore_config(source: bytes | ViewConfig, fname: str, kind: str) -> None:
    """Restore a configuration of ``kind`` ('series' on the Timeline, 'track' on the Map):
    its JSON bytes, or one whose referenced data file was just supplied. A configuration
    that only references its data waits for the file; one that is wrong in any way is
    refused with the page's error message and changes nothing
    (:func:`lmdk_core.files.config.restored_view` checks every part first)."""
    from app_support import correlation_state, session

    ss = st.session_state
    target = _restore_target(kind)
    try:
        checked = _checked_view(source, target)
    except InputError as exc:
        ss[target.error_key] = (f"Could not restore {quote_user_text(fname)}: {exc}. "
                                "Nothing was changed.")
        return
    ss[target.error_key] = None
    if checked is None:
        return
    cfg, view = checked
    name = (target.demo_name if view.data is None
            else target.add("Restored: " + fname, view.data))
    target.select(name, view)
    for setting_name, value in view.settings.items():
        set_setting(setting_name, value)
    correlation_state.restore_correlation(view.correlation, kind)
    session.restore_seed(cfg)


# ---------------------------------------------------------------- the buttons
#: exact releases kept per browser session (one per setting: see exact_series_release)
MAX_EXACT_RELEASES = 8


def exact_series_release(series: Series, rel: Release, cfg: ViewConfig,
                         store: dict) -> Release:
    """The publishable release of the page's view: a fresh release of the same data with
    the same landmarks, ε, scheme, mechanism, Δf and w, its noise drawn by the exact
    discrete Laplace sampler (safe against Mironov's attack, CCS 2012) and its allocation
    checked by the verifier.

    Kept in ``store`` per setting: downloading again gives the same file, never a second
    independent release of the same data (two releases would spend 2ε)."""
    digest = array_digest(series.values)
    key = (digest, tuple(int(t) for t in rel.landmarks), rel.epsilon,
           rel.scheme, rel.mechanism, float(cfg.sensitivity), int(cfg.window),
           rel.max_landmarks)
    if key not in store:
        while len(store) >= MAX_EXACT_RELEASES:
            store.pop(next(iter(store)))
        store[key] = release_series(series.values, rel.landmarks.tolist(), epsilon=rel.epsilon,
                                    scheme=rel.scheme, mechanism=rel.mechanism,
                                    sensitivity=cfg.sensitivity, seed=None, window=cfg.window,
                                    noise="exact", max_landmarks=rel.max_landmarks)
    return store[key]


def release_button(where, cfg: ViewConfig, label: str, data, stem: str, ext: str, mime: str,
                   key: str, help: str) -> None:  # noqa: A002 - Streamlit's name
    """A download of released values: publishable (``lmdk_release_<stem>``), or in the
    teaching mode (``cfg.reproducible``: the fixed seed) labelled "TEACHING — not
    publishable", named ``lmdk_TEACHING_<stem>`` and with the teaching line in the file
    (``data`` is called with that line, or with None, and returns the file's text)."""
    seed = cfg.teaching_seed()
    note = teaching_note(seed) if seed is not None else None
    where.download_button(
        f"TEACHING — {label[0].lower()}{label[1:]}, not publishable" if note else label,
        lambda: data(note),
        file_name=teaching_filename(stem, ext) if note else publishable_filename(stem, ext),
        mime=mime, icon=":material/school:" if note else ":material/download:", key=key,
        help=TEACHING_HELP if note else help, on_click="ignore")


def _with_teaching(noise: str, note: str | None) -> str:
    """The sampler line of a file, with the teaching line when there is one."""
    return noise if note is None else f"{noise}; {note}"


def _explain_csv(message: str) -> str:
    return f"# No release: {message}\n"


#: an audit file of the confidential expander: (label, its text or a callable making the
#: text when the button is clicked, file name, mime type)
AuditFile = tuple[str, str | Callable[[], str], str, str]


def confidential_downloads(cfg: ViewConfig, key: str, dataset_name: str,
                           audit_files: Sequence[AuditFile] = (),
                           report: bool = True) -> None:
    """The confidential expander: audit files ``(label, text, file name, mime)`` (``text``
    may be a callable, run when the button is clicked), the configuration with the data
    embedded and by reference, and (``report``) the internal report."""
    with st.expander(f":material/lock: {CONFIDENTIAL_LABEL} — audit files, configuration, "
                     "internal report"):
        st.warning("**Do not publish these files.** They contain the raw data and the "
                   "landmark set (and the seed, which regenerates the noise): for internal "
                   "audit and for restoring this view only.", icon=":material/lock:")
        cols = st.columns(2)
        i = 0
        for label, text, name, mime in audit_files:
            cols[i % 2].download_button(f"CONFIDENTIAL — {label}", text, file_name=name,
                                        mime=mime, icon=":material/lock:",
                                        key=f"{key}_audit_{i}",
                                        on_click="ignore" if callable(text) else "rerun")
            i += 1
        embedded = cfg.data is not None
        cols[i % 2].download_button(
            "CONFIDENTIAL — Configuration with the data (JSON)" if embedded
            else "CONFIDENTIAL — Configuration (JSON)",
            lambda: config_to_json(cfg), file_name=confidential_filename("view", "json"),
            mime="application/json", icon=":material/lock:", key=f"{key}_config",
            on_click="ignore",
            help="Upload it above to restore this view"
                 + (" (the data are embedded). " if embedded else ". ") + RESTORE_HELP)
        i += 1
        upload = _uploaded_file(dataset_name) if embedded else None
        if upload is not None:
            cols[i % 2].download_button(
                "CONFIDENTIAL — Configuration, data by reference (JSON)",
                lambda: config_to_json(reference_config(cfg, upload["name"],
                                                        sha256=upload["sha256"])),
                file_name=confidential_filename("view_by_reference", "json"),
                mime="application/json", icon=":material/lock:", key=f"{key}_config_ref",
                on_click="ignore",
                help=f"Without the data: only the file name "
                     f"{quote_user_text(upload['name'])} and its "
                     "SHA-256. To restore, upload this configuration and then that file. "
                     "It still holds the landmarks and the seed.")
            i += 1
        elif embedded:
            st.caption("A configuration that references its data file (instead of "
                       "containing it) is offered for data uploaded as a file in this "
                       "session.")
        if report:
            with cols[i % 2]:
                internal_report_button(cfg, key=f"{key}_report")


def series_downloads(series: Series, rel: Release, cfg: ViewConfig, key: str,
                     dataset_name: str) -> None:
    """Timeline: the publishable CSV and release note, then the confidential expander.

    The page's ``rel`` (numpy's samplers, seeded) is for exploration; the released series
    and the audit table are the publishable release of the same view drawn with the exact
    sampler (:func:`exact_series_release`), built when a button is clicked. While
    the configured mechanism cannot release the data (Geometric on decimals), the page
    says so and offers only the configuration."""
    problems = mechanism_problems(series.values, cfg.mechanism, cfg.sensitivity)
    if problems:
        st.info("**No release files while the Geometric mechanism cannot release this "
                "series**: " + "; ".join(p.problem for p in problems) + ". Apply a fix "
                "above (e.g. *Use Laplace*) to download the released series, the release "
                "note and the reports; the configuration below restores this view.",
                icon=":material/info:")
        confidential_downloads(cfg, key, dataset_name, [], report=False)
        return
    mech = mechanism_text(rel.mechanism, sensitivity=cfg.sensitivity)
    noise = noise_text("exact")
    store = st.session_state.setdefault(K.EXACT_RELEASES, {})

    def _file(build) -> Callable[[], str]:
        def run() -> str:
            try:
                return build(exact_series_release(series, rel, cfg, store))
            except InputError as exc:  # e.g. a value plus its noise overflows
                return _explain_csv(str(exc))
        return run

    d1, d2, _ = st.columns([1, 1, 2])
    release_button(d1, cfg, "Released series (CSV)",
                   lambda note: _file(lambda r: series_publishable_csv(
                       series, r, mech, _with_teaching(noise, note),
                       sensitivity=cfg.sensitivity))(),
                   "series", "csv", "text/csv", f"{key}_release_csv", PUBLISHABLE_HELP)
    with d2:
        release_note_button(cfg, key=f"{key}_note", noise=noise)
    confidential_downloads(cfg, key, dataset_name, [
        ("Audit table (CSV)",
         _file(lambda r: series_audit_csv(series, r, mech, noise, None)),
         confidential_filename("audit_series", "csv"), "text/csv")])


def track_downloads(track: Track, rel: Release, cfg: ViewConfig, key: str,
                    dataset_name: str, region_default: str = "") -> None:
    """Map: the publishable CSV, GeoJSON and release note, then the confidential expander.

    The files are the exact Planar Laplace release of the view on the grid of the
    declared region (:mod:`app_support.track_region`), drawn when a button is clicked;
    in the teaching mode they are the page's seeded numpy release, labelled so. Without a
    declared region only the configuration is offered (``region_default``: the built-in
    demo's public region, the input's starting text)."""
    mech = mechanism_text("planar laplace", radius=cfg.radius)
    if cfg.reproducible:
        noise = PLANAR_NOISE

        def published() -> Release:
            return rel
    else:
        region = declared_region(track, key, region_default)
        if region is None:
            confidential_downloads(cfg, key, dataset_name, [], report=False)
            return
        noise = planar_noise_text("exact", cfg.radius, region)

        def published() -> Release:
            return exact_track_release(track, rel, cfg, region)
    d1, d2, d3, d4 = st.columns([1, 1, 1, 1])
    release_button(d1, cfg, "Released track (CSV)",
                   lambda note: trajectory_publishable_csv(track, published(), mech,
                                                           _with_teaching(noise, note),
                                                           radius=cfg.radius),
                   "track", "csv", "text/csv", f"{key}_release_csv",
                   PUBLISHABLE_HELP.replace("released value", "released lat, lon"))
    release_button(d2, cfg, "Released track (GeoJSON)",
                   lambda note: geojson_text(trajectory_publishable_geojson(
                       track, published(), mech, _with_teaching(noise, note))),
                   "track", "geojson", "application/geo+json", f"{key}_release_geojson",
                   "Publishable: the released path and one point per timestamp (empty where "
                   "withheld); ε, scheme and mechanism in its properties. No original path, "
                   "no landmarks.")
    with d3:
        release_note_button(cfg, key=f"{key}_note", noise=noise)
    release_button(d4, cfg, "Released track (offline map, HTML)",
                   lambda note: released_track_map_html(track, published(), mech,
                                                        _with_teaching(noise, note)),
                   "track_map", "html", "text/html", f"{key}_release_map",
                   "Publishable: a map of the released track only (the GeoJSON's content) "
                   "that opens in any browser without a network connection, for "
                   "stakeholders. No original path, no landmarks.")

    def audit_geojson() -> str:
        audit_geo = trajectory_geojson(track, published())
        audit_geo["properties"].update({"seed": cfg.seed, "noise": noise})
        return geojson_text(audit_geo)

    # every file is built when its button is clicked, not on each rerun of the page
    confidential_downloads(cfg, key, dataset_name, [
        ("Audit table (CSV)",
         lambda: trajectory_audit_csv(track, published(), mech, noise, cfg.seed),
         confidential_filename("audit_track", "csv"), "text/csv"),
        ("Audit GeoJSON (original path, landmarks)", audit_geojson,
         confidential_filename("audit_track", "geojson"), "application/geo+json")])
