"""Changes to the user's own files: made on their syntax trees (edits.py), tried in a copy of the project
(project.py), shown as a unified diff and written only where that is safe."""
