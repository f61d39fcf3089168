"""The one fix engine: a transform is named, reads its preconditions from the site (the user's file, the statement
torch named, the function holding it) and returns typed edits (model/edits.py); `build` makes them on the file,
checks the edited file parses, and renders the hunk the report prints, so that the report's before/after is what
`doctor fix` writes. The catalogue (rules/catalogue.yaml) names the transforms a rule's findings may try."""
