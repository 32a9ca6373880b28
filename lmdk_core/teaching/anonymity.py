"""The Learn page's sixth lesson: why not k-anonymity for continuous publishing.

k-anonymity (Sweeney 2002), l-diversity (Machanavajjhala et al. 2006) and t-closeness
(Li, Li, Venkatasubramanian 2007) on the ``User(Name, Age, Location, Status)`` example of
Katsomallos et al.'s survey, and the intersection (composition) attack on two
k-anonymous releases (Ganta, Kasiviswanathan, Smith, KDD 2008; the survey's
"complementary release attack", Sweeney 2002).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lmdk_core.foundation.errors import InputError

__all__ = [
    "AGE_LEVELS",
    "AnonymityReport",
    "IntersectionAttack",
    "LOCATION_LEVELS",
    "anonymity_report",
    "distinct_l_diversity",
    "entropy_l_diversity",
    "equivalence_classes",
    "generalize",
    "intersection_attack",
    "k_anonymity",
    "t_closeness",
    "toy_microdata",
]


#: generalisation hierarchy of Age (level -> description)
AGE_LEVELS = {0: "exact age", 1: "decade (10–19, 20–29, ...)", 2: "≤ 20 / > 20",
              3: "suppressed (*)"}
#: generalisation hierarchy of Location
LOCATION_LEVELS = {0: "neighbourhood", 1: "city (Paris)", 2: "suppressed (*)"}

QUASI_IDENTIFIERS = ("Age", "Location")
SENSITIVE = "Status"

_TOY_ROWS = [
    # Name, Age, Location, Status — the User(Name, Age, Location, Status) example of
    # Katsomallos et al.'s survey:
    # Dewey at home at Montmartre, Quackmore (62, the sixth record) dining at Opéra.
    ("Donald", 31, "Montmartre", "at work"),
    ("Daisy", 29, "Opéra", "driving"),
    ("Huey", 12, "Montmartre", "running"),
    ("Dewey", 11, "Montmartre", "at home"),
    ("Louie", 10, "Opéra", "walking"),
    ("Quackmore", 62, "Opéra", "dining"),
]


def toy_microdata(variant: str = "survey") -> pd.DataFrame:
    """The microdata ``User(Name, Age, Location, Status)`` of Katsomallos et al.'s survey
    at one timestamp.

    ``variant="survey"``: the survey's table as it is. ``variant="homogeneous"``: every
    adult is "at work" — the homogeneity attack of Machanavajjhala et al.: a k-anonymous
    class whose sensitive values are all equal.
    """
    df = pd.DataFrame(_TOY_ROWS, columns=["Name", "Age", "Location", "Status"])
    key = str(variant).strip().lower()
    if key == "homogeneous":
        df.loc[df["Age"] > 20, "Status"] = "at work"
    elif key != "survey":
        raise InputError(f"unknown variant {variant!r}; choose survey or homogeneous")
    return df


def _age_label(age: int, level: int) -> str:
    if level == 0:
        return str(age)
    if level == 1:
        lo = (age // 10) * 10
        return f"{lo}–{lo + 9}"
    if level == 2:
        return "≤ 20" if age <= 20 else "> 20"
    return "*"


def generalize(table: pd.DataFrame, age_level: int, location_level: int) -> pd.DataFrame:
    """Suppress the identifier (Name → ``*``) and generalise the quasi-identifiers Age and
    Location up their hierarchies (:data:`AGE_LEVELS`, :data:`LOCATION_LEVELS`) — Sweeney's
    generalisation and suppression (2002)."""
    if age_level not in AGE_LEVELS:
        raise InputError(f"age level must be one of {sorted(AGE_LEVELS)}")
    if location_level not in LOCATION_LEVELS:
        raise InputError(f"location level must be one of {sorted(LOCATION_LEVELS)}")
    out = table.copy()
    out["Name"] = "*"
    out["Age"] = [_age_label(int(a), age_level) for a in table["Age"]]
    out["Location"] = [loc if location_level == 0 else ("Paris" if location_level == 1 else "*")
                       for loc in table["Location"]]
    return out


def equivalence_classes(table: pd.DataFrame, qi: Sequence[str] = QUASI_IDENTIFIERS
                        ) -> list[np.ndarray]:
    """Row indices of each equivalence class: rows with equal quasi-identifier values."""
    return [np.asarray(idx) for _, idx in table.groupby(list(qi), sort=False).indices.items()]


def k_anonymity(table: pd.DataFrame, qi: Sequence[str] = QUASI_IDENTIFIERS) -> int:
    """Largest k for which the table is k-anonymous: the smallest class size (Sweeney)."""
    return int(min(len(c) for c in equivalence_classes(table, qi)))


def distinct_l_diversity(table: pd.DataFrame, qi: Sequence[str] = QUASI_IDENTIFIERS,
                         sensitive: str = SENSITIVE) -> int:
    """Distinct l-diversity: the fewest distinct sensitive values in a class
    (Machanavajjhala et al. 2006)."""
    s = table[sensitive].to_numpy()
    return int(min(len(set(s[c])) for c in equivalence_classes(table, qi)))


def entropy_l_diversity(table: pd.DataFrame, qi: Sequence[str] = QUASI_IDENTIFIERS,
                        sensitive: str = SENSITIVE) -> float:
    """Entropy l-diversity: ``exp(min over classes of −Σ p·ln p)`` — the table is entropy
    l-diverse for every l up to this value (Machanavajjhala et al. 2006)."""
    s = table[sensitive].to_numpy()
    ent = []
    for c in equivalence_classes(table, qi):
        _, counts = np.unique(s[c], return_counts=True)
        p = counts / counts.sum()
        ent.append(float(-(p * np.log(p)).sum()))
    return float(np.exp(min(ent)))


def t_closeness(table: pd.DataFrame, qi: Sequence[str] = QUASI_IDENTIFIERS,
                sensitive: str = SENSITIVE) -> float:
    """Smallest t for which the table has t-closeness (Li, Li, Venkatasubramanian 2007):
    the largest distance between a class's sensitive-value distribution and the whole
    table's. For a categorical attribute with equal ground distances the Earth Mover's
    Distance is the total-variation distance ``½ Σ_v |P_class(v) − P_table(v)|``."""
    s = table[sensitive].to_numpy()
    values = np.unique(s)
    overall = np.array([(s == v).mean() for v in values])
    worst = 0.0
    for c in equivalence_classes(table, qi):
        dist = np.array([(s[c] == v).mean() for v in values])
        worst = max(worst, 0.5 * float(np.abs(dist - overall).sum()))
    return worst


@dataclass(frozen=True)
class AnonymityReport:
    """A generalised release of the toy table and its k, l and t."""

    released: pd.DataFrame
    classes: pd.DataFrame
    k: int
    l_distinct: int
    l_entropy: float
    t: float


def anonymity_report(age_level: int, location_level: int, variant: str = "survey"
                     ) -> AnonymityReport:
    """Generalise the toy table and measure it: k-anonymity, distinct and entropy
    l-diversity, t-closeness; ``classes`` lists each class's size and sensitive values."""
    gen = generalize(toy_microdata(variant), age_level, location_level)
    rows = []
    for c in equivalence_classes(gen):
        statuses = gen["Status"].to_numpy()[c]
        rows.append({"Age": gen["Age"].iloc[c[0]], "Location": gen["Location"].iloc[c[0]],
                     "people": len(c), "Status values": ", ".join(sorted(set(statuses)))})
    return AnonymityReport(
        released=gen, classes=pd.DataFrame(rows), k=k_anonymity(gen),
        l_distinct=distinct_l_diversity(gen), l_entropy=entropy_l_diversity(gen),
        t=t_closeness(gen),
    )


@dataclass(frozen=True)
class IntersectionAttack:
    """What an adversary learns about ``target`` from two releases.

    The adversary knows the target's quasi-identifiers (age and neighbourhood) and that
    the target is in both tables. ``candidates_a``/``candidates_b``: the sensitive values
    of the target's class in each release; ``intersection``: the values consistent with
    both. ``k_a``/``k_b`` are the releases' k.
    """

    target: str
    truth: str
    candidates_a: list[str]
    candidates_b: list[str]
    intersection: list[str]
    k_a: int
    k_b: int

    @property
    def disclosed(self) -> bool:
        """True when the two releases together pin the target's status down."""
        return len(self.intersection) == 1


def intersection_attack(levels_a: tuple[int, int], levels_b: tuple[int, int],
                        target: str = "Donald", variant: str = "survey") -> IntersectionAttack:
    """The composition (intersection) attack of Ganta, Kasiviswanathan & Smith (KDD 2008)
    on two k-anonymous releases of the same table, generalised with ``levels_a`` and
    ``levels_b`` = (age level, location level): each release alone leaves k candidates
    for the target's status; intersecting the two classes' values may leave one."""
    table = toy_microdata(variant)
    names = table["Name"].tolist()
    if target not in names:
        raise InputError(f"{target!r} is not in the table; choose one of {', '.join(names)}")
    i = names.index(target)
    out = []
    for levels in (levels_a, levels_b):
        gen = generalize(table, *levels)
        cls = next(c for c in equivalence_classes(gen) if i in c)
        out.append((sorted(set(gen["Status"].to_numpy()[cls])), k_anonymity(gen)))
    (ca, ka), (cb, kb) = out
    inter = sorted(set(ca) & set(cb))
    return IntersectionAttack(target, str(table["Status"].iloc[i]), ca, cb, inter, ka, kb)
