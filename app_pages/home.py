"""Home: what landmark privacy is in three sentences, where to start, and every page in
one line each (the first screen of the app; the manual is in docs/)."""

import streamlit as st

st.title(":material/shield_lock: Landmark Privacy Explorer")
st.markdown(
    "**Landmark privacy** is differential privacy for data that arrive over time — a "
    "smart-meter series, a GPS track — where some moments matter more than others: a "
    "night at the hospital, the home address. Those are the **landmarks**: they are "
    "protected all together, every other moment on its own, so that the landmarks plus "
    "any one moment spend at most the budget **ε**. Mark landmarks, choose ε and a "
    "scheme, and read the verdict before you publish."
)
if st.button("Start here: mark landmarks on a demo week",
             type="primary", icon=":material/play_arrow:"):
    st.switch_page("app_pages/timeline.py")
st.caption("New to differential privacy? Start with **Learn** instead (six short lessons).")

# every page, in the order of the page list, one line each
PAGES = [
    ("app_pages/learn.py", "Learn", ":material/school:",
     "differential privacy step by step, with interactive lessons"),
    ("app_pages/timeline.py", "Timeline", ":material/show_chart:",
     "mark landmarks on a time series, release it, read the verdict, download"),
    ("app_pages/map.py", "Map", ":material/map:",
     "the same for a GPS track: landmarks on a map, Planar Laplace"),
    ("app_pages/choose_epsilon.py", "Choose ε", ":material/tune:",
     "the ε that gives the accuracy you need, and what an attacker learns at it"),
    ("app_pages/compare.py", "Compare", ":material/compare:",
     "two to four schemes side by side, and their error against ε"),
    ("app_pages/leakage.py", "Leakage", ":material/water_drop:",
     "what correlated values leak (Cao et al.), and ε calibrated to a target"),
    ("app_pages/dummies.py", "Dummy landmarks", ":material/scatter_plot:",
     "hide which moments are landmarks among privately chosen dummies"),
    ("app_pages/population.py", "Population", ":material/groups:",
     "a whole population of users released and audited at once"),
]
st.header("Pages")
with st.container(key="lmdk_pages"):  # the links wrap on a phone (accessibility.py)
    for path, title, icon, what in PAGES:
        st.page_link(path, label=f"**{title}** — {what}", icon=icon)

st.caption("ε, the scheme and the other shared settings are in the sidebar (on a phone: "
           "the » button at the top left, and above the verdict) and are kept while you "
           "switch pages; the sidebar shows only those that apply to the page. The manual "
           "is in the docs/ folder (docs/app.md).")

with st.expander("The schemes in one line each"):
    from lmdk_core.engine.allocation import SCHEMES

    for s in SCHEMES.values():
        st.markdown(f"- **{s.label}** — {s.description}")
