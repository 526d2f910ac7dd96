"""The one guard of the files a diagram names (blocksim.confine), on a real file system."""

import os

import pytest

from blocksim.confine import (
    Confinement,
    PathRefused,
    confined,
    input_path,
    output_path,
    replacing,
    typed_path,
)


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "diagram"
    d.mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("SECRET")
    return d


@pytest.mark.parametrize("name", ["/etc/passwd", "../x.png", "a/../../x.png", "~/x.png",
                                  "~root/x.png", "", "a\x00b"])
def test_names_outside_the_folder_are_refused_for_writing_and_reading(folder, name):
    with confined(Confinement(folder)):
        with pytest.raises(PathRefused):
            output_path(name, "file")
        with pytest.raises(PathRefused):
            input_path(name, "map")


def test_relative_names_start_at_the_files_folder_not_the_working_directory(folder, tmp_path,
                                                                          monkeypatch):
    monkeypatch.chdir(tmp_path / "outside")
    with confined(Confinement(folder)):
        assert output_path("fig.png", "file") == folder.resolve() / "fig.png"
        assert input_path("sub/../map.npy", "map") == folder.resolve() / "map.npy"


def test_a_link_out_of_the_folder_is_refused_and_a_link_inside_is_followed(folder, tmp_path):
    (folder / "results").symlink_to(tmp_path / "outside")
    (folder / "inside").mkdir()
    (folder / "alias").symlink_to(folder / "inside")
    (folder / "out.png").symlink_to(tmp_path / "outside" / "secret.txt")
    with confined(Confinement(folder)):
        for name in ("results/report.png", "out.png"):
            with pytest.raises(PathRefused, match="outside this file's folder"):
                output_path(name, "file")
        with pytest.raises(PathRefused):
            input_path("results/secret.txt", "map")
        assert output_path("alias/x.png", "file") == (folder / "inside").resolve() / "x.png"
    with confined(Confinement(folder, allow=(tmp_path / "outside",))):
        assert output_path("results/r.png", "file") == (tmp_path / "outside").resolve() / "r.png"


def test_an_output_that_is_a_folder_or_a_pipe_is_refused(folder):
    (folder / "dir.png").mkdir()
    os.mkfifo(folder / "pipe.csv")
    with confined(Confinement(folder)):
        with pytest.raises(PathRefused, match="a folder"):
            output_path("dir.png", "file")
        with pytest.raises(PathRefused, match="not a regular file"):
            output_path("pipe.csv", "file")


def test_outside_a_load_python_paths_are_the_programs_own(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert output_path("~/x.csv", "file") == tmp_path / "x.csv"
    assert output_path("/abs/x.csv", "file") == output_path("/abs/x.csv", "file")
    assert input_path(None, "map") is None and output_path(None, "file") is None


def test_replacing_replaces_a_link_instead_of_writing_through_it(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "out.txt"
    link.symlink_to(victim)
    with replacing(link) as tmp:
        assert tmp.suffix == ".txt" and tmp.parent == tmp_path
        tmp.write_text("result")
    assert victim.read_text() == "keep me"
    assert not link.is_symlink() and link.read_text() == "result"
    umask = os.umask(0)
    os.umask(umask)
    assert link.stat().st_mode & 0o777 == 0o666 & ~umask  # as open() makes it, not 0600


def test_replacing_leaves_nothing_behind_when_the_writer_fails(tmp_path):
    target = tmp_path / "r.npz"
    with pytest.raises(RuntimeError), replacing(target):
        raise RuntimeError("writer failed")
    assert list(tmp_path.iterdir()) == []


def test_a_typed_path_may_not_leave_the_working_folder_through_a_shipped_link(tmp_path,
                                                                             monkeypatch):
    work = tmp_path / "work"
    (work / "real").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (work / "results").symlink_to(tmp_path / "elsewhere")
    (work / "run.npz").symlink_to(tmp_path / "elsewhere" / "x.npz")
    monkeypatch.chdir(work)
    for name in ("results/run.npz", "run.npz"):
        with pytest.raises(PathRefused, match="symbolic link"):
            typed_path(name, "--out")
    assert typed_path("real/run.npz", "--out").name == "run.npz"
    assert typed_path(str(tmp_path / "elsewhere" / "y.npz"), "--out")  # typed: the user's own
    assert typed_path("results/run.npz", "--out", allow=[str(tmp_path / "elsewhere")])
