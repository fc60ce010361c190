"""Draw the tree shown in the README and on the book's first page.

Run from the repository root:  .venv/bin/python book/images/draw_penguin_tree.py
It writes book/images/penguin_tree.png, which is committed.
"""

from pathlib import Path

import matplotlib.pyplot as plt
from palmerpenguins import load_penguins

from climbing_trees import DecisionTreeClassifier, plot_tree

FEATURES = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]


def main() -> None:
    penguins = load_penguins().dropna(subset=FEATURES)
    model = DecisionTreeClassifier(max_depth=2)
    model.fit(penguins[FEATURES], penguins["species"])
    fig, ax = plt.subplots(figsize=(9, 4.2), layout="constrained")
    plot_tree(
        model, ax=ax, class_names=list(model.classes_), filled=True, rounded=True,
        fontsize=9,
    )  # fmt: skip
    ax.set_title(
        "A depth-2 tree for the Palmer penguins' species (climbing_trees.plot_tree)"
    )
    out = Path(__file__).with_name("penguin_tree.png")
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
