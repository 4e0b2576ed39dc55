"""The studio's API, a router per area: jobs (start, watch, cancel, pages and exports), files (the
workspace's puzzle files as text), puzzles (as the editor reads and saves them) and the page
(the studio's own page and scripts). Each takes the studio as a dependency (security.studio_of)."""
