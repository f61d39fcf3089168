"""The report model, one package: the Report and its findings (report.py), the typed impact and evidence of each
finding family (findings.py), where the compile time went (compile_time.py), what the gate decided
(gate.py), the one serialiser of all of it (json.py: `to_json`, the JSON schema version 1), and how a path is
shown to people (paths.py: `display_path`, never a machine's absolute path). Frozen
dataclasses, knowing nothing of formats, of torch's logs or of the catalogue."""
