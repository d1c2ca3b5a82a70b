#!/bin/sh
# The small-host scenario's options (bench/scenarios/small-host.ts): npm runs a script as
# `<script-shell> -c "<script>"`, so `npm start --script-shell=<this file>` runs `npm start` as
# users do (npm, a shell, node) with the node flags of the start script replaced by
# $SMALL_HOST_NODE_FLAGS. Arguments after src/main.ts are kept.
script=$2
# What precedes node (the compile cache variable) is kept too.
exec /bin/sh -c "${script%%node *}node $SMALL_HOST_NODE_FLAGS src/main.ts${script##*src/main.ts}"
