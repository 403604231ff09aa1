#!/usr/bin/env python3
"""Records what real kubectl prints for each path in paths.txt into the JSON table that
KubectlJsonPathTableTest replays. Run from the module directory after changing paths.txt:

    python3 src/test/kubectl/record_kubectl_table.py [path/to/kubectl]

kubectl runs fully offline: `kubectl label --local -f OBJ zz- -o jsonpath=PATH` removes a label that
does not exist (a no-op) and prints the unchanged object through kubectl's own JSONPath printer.
"""
import json, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
module = os.path.dirname(os.path.dirname(os.path.dirname(here)))
kubectl = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.kubeapitest/k8s/1.20.2-linux-amd64/kubectl")
obj = os.path.join(module, "src/test/resources/objects/deployment.yaml")
version = subprocess.run([kubectl, "version", "--client", "--short"], capture_output=True, text=True).stdout.strip()
rows = []
for line in open(os.path.join(here, "paths.txt")):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    path, _, flags = line.partition("\t")
    # kubectl treats text outside {} as literal template text; Kollect accepts a bare path as if
    # it were wrapped, so a bare path is compared with kubectl's output for the wrapped form.
    kpath = path if path.lstrip().startswith("{") else "{" + path + "}"
    p = subprocess.run([kubectl, "label", "--local", "-f", obj, "zz-", "-o", "jsonpath=" + kpath],
                       capture_output=True, text=True, env={**os.environ, "KUBECONFIG": "/dev/null"})
    rows.append({"path": path, "kubectlPath": kpath, "flags": flags.split(",") if flags else [],
                 "kubectlExit": p.returncode, "kubectl": p.stdout if p.returncode == 0 else ""})
out = os.path.join(module, "src/test/resources/kubectl/jsonpath-table.json")
with open(out, "w") as f:
    json.dump({"recordedWith": version, "object": "objects/deployment.yaml", "rows": rows}, f, indent=1)
    f.write("\n")
print("wrote", out, len(rows), "rows")
