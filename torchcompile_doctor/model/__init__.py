"""The report model, one package: the Report and its findings (report.py), the typed impact and evidence of each
finding family (findings.py), where the compile time went (compile_time.py), what the gate decided
(gate.py), and the one serialiser of all of it (json.py: `to_json`, the JSON schema version 1). Frozen
dataclasses, knowing nothing of formats, of torch's logs or of the catalogue."""
