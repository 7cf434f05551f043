from ctxls.cli import main

raise SystemExit(main())
