import sqlite3
from pathlib import Path

import numpy as np
import pytest

from retrieval.errors import EmbeddingMismatchError
from retrieval.vectors import cosines, load_matrix, nearest


def test_nearest_keeps_the_pool_best_and_adds_the_asked_ids_that_exist() -> None:
    ids = np.array([2, 4, 6, 8], dtype=np.int64)
    scores = np.array([0.5, -0.25, 0.75, 0.0], dtype=np.float32)
    assert nearest(ids, scores, 2) == {6: 0.75, 2: 0.5}
    assert nearest(ids, scores, 2, also=[4, 5, 99]) == {6: 0.75, 2: 0.5, 4: -0.25}
    assert nearest(ids, scores, 10) == {6: 0.75, 2: 0.5, 8: 0.0, 4: -0.25}
    assert nearest(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32), 5) == {}


def test_cosines_of_unit_rows_are_dot_products() -> None:
    matrix = np.array([[1.0, 0.0], [0.6, 0.8]], dtype=np.float32)
    np.testing.assert_allclose(cosines(matrix, np.array([0.6, 0.8], dtype=np.float32)), [0.6, 1.0])


def test_load_matrix_refuses_vectors_of_another_dimension(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "v.sqlite3")
    conn.execute("CREATE TABLE passages (id INTEGER PRIMARY KEY, vector BLOB)")
    conn.execute("INSERT INTO passages VALUES (1, ?)", (np.ones(4, np.float32).tobytes(),))
    conn.execute("INSERT INTO passages VALUES (2, NULL)")
    ids, matrix = load_matrix(conn, 4, tmp_path)
    assert ids.tolist() == [1]
    assert matrix.shape == (1, 4)
    with pytest.raises(EmbeddingMismatchError, match="not 3-dimensional"):
        load_matrix(conn, 3, tmp_path)
    conn.close()
