"""turbopt.import_blade: the same blade file as `turbopt import`, and errors that name the problem."""

import json

import pytest

import turbopt

MUR47 = dict(name="MUR47", p01=159600.0, t01=420.0, alpha1=0.0, p2=82350.0)


def test_import_writes_the_blade_file_picture_and_report(tmp_path):
    out = tmp_path / "tn174.ron"
    report = turbopt.import_blade(
        "data/ls89/tn174_profile_coordinates_mm.csv",
        pitch=57.5,
        chord=67.647,
        units="mm",
        name="LS89-TN174",
        operating_points=[MUR47],
        out=out,
    )
    assert report["fit_rms_percent_chord"] < 0.03
    assert report["within_tolerance"]
    assert abs(report["throat"] - 14.93e-3) < 0.05e-3
    assert out.exists() and (tmp_path / "tn174.fit.png").stat().st_size > 10_000
    assert json.loads((tmp_path / "tn174.import.json").read_text())["points"] == report["points"]
    text = out.read_text()
    assert 'name: "LS89-TN174"' in text and "MUR47" in text
    # The written file is a blade file the evaluator takes as it is.
    ev = turbopt.Evaluator(str(out))
    assert len(ev.space) == report_dimension(text)
    with pytest.raises(ValueError, match="exists"):
        turbopt.import_blade("data/ls89/tn174_profile_coordinates_mm.csv", pitch=57.5, units="mm", operating_points=[MUR47], out=out)


def report_dimension(text):
    """Free design variables of the blade file: those whose bounds differ."""
    design = text[text.index("design: Some(") :]
    count = 0
    for line in design.splitlines():
        if "lower:" in line and "upper:" in line:
            lower = line.split("lower:")[1].split(",")[0].strip()
            upper = line.split("upper:")[1].split(")")[0].strip()
            count += lower != upper
    return count


def test_bad_input_names_the_problem(tmp_path):
    table = "data/ls89/tn174_profile_coordinates_mm.csv"
    with pytest.raises(ValueError, match="check the units"):
        turbopt.import_blade(table, pitch=57.5, units="m", operating_points=[MUR47], out=tmp_path / "a.ron")
    with pytest.raises(ValueError, match="alpha1 is missing"):
        turbopt.import_blade(table, pitch=57.5, units="mm", operating_points=[dict(name="P", p01=1e5, t01=300.0, p2=8e4)], out=tmp_path / "b.ron")
    with pytest.raises(ValueError, match="units"):
        turbopt.import_blade(table, pitch=57.5, units="furlongs", operating_points=[MUR47], out=tmp_path / "c.ron")
    with pytest.raises(FileNotFoundError):
        turbopt.import_blade("no/such/file.csv", pitch=57.5, units="mm", operating_points=[MUR47], out=tmp_path / "d.ron")
