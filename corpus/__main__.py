from cli import main  # the command line lives in cli/; this keeps `python -m corpus` working

raise SystemExit(main())
