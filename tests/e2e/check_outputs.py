#!/usr/bin/env python3
"""kgate check's machine outputs and decision trace (issue 17): -o junit and -o sarif parsed and checked field by
field, --explain in text and json, --audit's report, over testdata/check-outputs (a policy denial with a warning
from another policy, an admitted object, a PodSecurity denial, a PodSecurity warning)."""
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

KGATE, DATA = sys.argv[1], sys.argv[2]
FILES = [f"{DATA}/policies.yaml", f"{DATA}/objects.yaml"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args, expect_rc=None):
    p = subprocess.run([KGATE, "check", *args], capture_output=True, text=True, timeout=60)
    if expect_rc is not None:
        check(p.returncode == expect_rc, f"kgate check {' '.join(args)}: exit {p.returncode}, want {expect_rc}\n"
              f"{p.stderr[-2000:]}")
    return p.stdout


DENY_VAP = ("deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'replicas-limit' with binding "
            "'replicas-limit-prod' denied request: at most 5 replicas")
WARN_VAP = ("Validation failed for ValidatingAdmissionPolicy 'need-team' with binding 'need-team-warn': "
            "a <team> label & \"owner\" are required")

# ---- junit ----
root = ET.fromstring(run("-o", "junit", *FILES, expect_rc=1))
check(root.tag == "testsuites", "junit root is <testsuites>")
check(root.get("tests") == "10" and root.get("failures") == "2" and root.get("errors") == "0",
      f"junit totals {root.attrib}")
suites = root.findall("testsuite")
check([s.get("name") for s in suites] == FILES, f"one testsuite per file: {[s.get('name') for s in suites]}")
cases = {c.get("name"): c for s in suites for c in s.findall("testcase")}
check(set(cases) >= {"Deployment default/web", "Deployment default/web2", "Pod strict/priv", "Pod warned/hostnet",
                     "Namespace strict", "ValidatingAdmissionPolicy replicas-limit"}, f"testcase names {list(cases)}")
web = cases["Deployment default/web"]
fail = web.find("failure")
check(fail is not None and fail.get("type") == "422 Invalid", "web: failure type carries code and reason")
check(fail is not None and fail.get("message") == DENY_VAP, f"web: failure message {fail.get('message')!r}")
check(fail is not None and "ValidatingAdmissionPolicy/replicas-limit" in fail.text, "web: failure names the rule")
check(web.findtext("system-out", "").strip() == "warning: " + WARN_VAP, "web: warning in system-out, unescaped")
check(cases["Deployment default/web2"].find("failure") is None, "web2 admitted: no failure")
priv = cases["Pod strict/priv"].find("failure")
check(priv is not None and priv.get("type") == "403 Forbidden" and
      priv.get("message").startswith('pods "priv" is forbidden: violates PodSecurity "restricted:latest": '),
      "priv: PodSecurity failure")
check("would violate PodSecurity \"baseline:latest\"" in cases["Pod warned/hostnet"].findtext("system-out", ""),
      "hostnet: PodSecurity warning in system-out")

# ---- sarif ----
sarif = json.loads(run("-o", "sarif", *FILES, expect_rc=1))
check(sarif["version"] == "2.1.0" and "sarif-2.1.0" in sarif["$schema"], "sarif version and schema")
run0 = sarif["runs"][0]
driver = run0["tool"]["driver"]
check(driver["name"] == "kgate", "sarif driver name")
rule_ids = [r["id"] for r in driver["rules"]]
check(rule_ids == ["ValidatingAdmissionPolicy/replicas-limit", "warning", "PodSecurity"], f"sarif rules {rule_ids}")
results = run0["results"]
errors = [r for r in results if r["level"] == "error"]
warnings = [r for r in results if r["level"] == "warning"]
check(len(errors) == 2 and len(warnings) == 2, f"sarif: 2 errors and 2 warnings, got {len(errors)}/{len(warnings)}")
for r in results:
    check(driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"], f"ruleIndex points at ruleId {r['ruleId']}")
    loc = r["locations"][0]["physicalLocation"]
    check(loc["artifactLocation"]["uri"].endswith("objects.yaml"), "sarif uri is the input file")
e_web = next(r for r in errors if r["ruleId"].startswith("ValidatingAdmissionPolicy"))
check(e_web["locations"][0]["physicalLocation"]["region"]["startLine"] == 17, "web's document starts on line 17")
check(e_web["message"]["text"] == "Deployment default/web denied: " + DENY_VAP, "sarif denial text")
e_priv = next(r for r in errors if r["ruleId"] == "PodSecurity")
check(e_priv["locations"][0]["physicalLocation"]["region"]["startLine"] == 42, "priv's document starts on line 42")
check(any(w["message"]["text"] == "Deployment default/web: " + WARN_VAP for w in warnings), "sarif warning text")

# ---- --explain, json ----
out = json.loads(run("-o", "json", "--explain", *FILES, expect_rc=1))
res = {r["name"]: r for r in out["results"]}
ex = res["web"]["explain"]
plugins = [s["name"] for s in ex if s["depth"] == 0]
check(plugins[0] == "NamespaceLifecycle" and "ValidatingAdmissionPolicy" in plugins and "PodSecurity" in plugins,
      f"every plugin in chain order: {plugins}")
vap = next(s for s in ex if s["depth"] == 0 and s["name"] == "ValidatingAdmissionPolicy")
check(vap["result"] == "denied" and vap["stage"] == "validating", "the VAP plugin denied")
steps = ex[ex.index(vap) + 1:]
deny = next(s for s in steps if s.get("binding") == "replicas-limit-prod")
check(deny["result"] == "denied" and deny["expression"] ==
      "object.spec.replicas <= 5 && object.metadata.name.startsWith('web')", "denying binding and its expression")
check({"expr": "object.spec.replicas", "value": "6"} in deny["trace"], "sub-expression value: replicas 6")
check({"expr": "object.spec.replicas <= 5", "value": "false"} in deny["trace"], "sub-expression value: <= 5 false")
warn = next(s for s in steps if s.get("binding") == "need-team-warn")
check(warn["result"] == "warned", "the Warn binding warned")
check(all(s["durationNs"] >= 0 for s in ex), "durations")
ex2 = res["web2"]["explain"]
check(all(s["result"] in ("admitted", "skipped", "mutated") for s in ex2), "web2: nothing denied")
exp = res["priv"]["explain"]
checks = [s for s in exp if s["kind"] == "check"]
check(len(checks) == 6 and all(s["result"] == "denied" for s in checks) and
      checks[0]["message"] == "host namespaces (hostNetwork=true)", f"priv: the failing PodSecurity checks {checks}")
sa = next(s for s in exp if s["depth"] == 0 and s["name"] == "ServiceAccount" and s["stage"] == "mutating")
check(sa["result"] == "mutated", "the ServiceAccount plugin mutated the pod")
hn = [s for s in res["hostnet"]["explain"] if s["kind"] == "check"]
check(len(hn) == 1 and hn[0]["result"] == "warned", "hostnet: one warned check")
check("explain" not in json.loads(run("-o", "json", *FILES))["results"][0], "no explain without --explain")

# ---- --explain, text ----
text = run("--explain", *FILES, expect_rc=1)
check("    ValidatingAdmissionPolicy replicas-limit binding replicas-limit-prod: denied" in text, "text: binding line")
check("        object.spec.replicas = 6\n" in text, "text: value under the expression")
check("    check enforce restricted:latest: denied: host namespaces (hostNetwork=true)\n" in text, "text: check")

# ---- --audit ----
POL, OBJ = FILES
text = run("--audit", "--policy", POL, "--context", OBJ, expect_rc=1)
check(text.startswith("Audit of 2 policies (2 bindings) over 6 objects: 2 matched, 1 violating\n"), "audit head")
check("replicas-limit  replicas-limit-prod  default    1\n" in text, "audit count row")
check("Deployment default/web: ValidatingAdmissionPolicy 'replicas-limit' with binding 'replicas-limit-prod' (Deny): "
      "at most 5 replicas" in text, "audit violation line")
check(text.rstrip().endswith("2 violations in 1 object"), "audit summary")
au = json.loads(run("--audit", "--policy", POL, "--max-violations", "1", "-o", "json", OBJ, expect_rc=1))["audit"]
check(au["objects"] == 6 and au["matched"] == 2 and au["violations"] == 2 and au["violatingObjects"] == 1,
      f"audit json totals {au}")
check(len(au["violationsShown"]) == 1 and au["truncated"], "audit bounded by --max-violations")
check(sorted((c["policy"], c["binding"], c["namespace"], c["violations"]) for c in au["counts"]) ==
      [("need-team", "need-team-warn", "default", 1), ("replicas-limit", "replicas-limit-prod", "default", 1)],
      "audit counts per policy, binding, namespace")
v = au["violationsShown"][0]
check(v["line"] == 17 and v["name"] == "web" and v["message"] == 'a <team> label & "owner" are required',
      "audit item: object, line, message")
# nothing enforced: the Deny policy's object would be denied at admission, audit only reports it; no violation = 0
run("--audit", "--policy", POL, f"{DATA}/audit-clean.yaml", expect_rc=0)
run("--audit", "--policy", POL, "--enable-admission-plugins", "AlwaysDeny", OBJ, expect_rc=2)
run("--audit", OBJ, expect_rc=2)

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all output checks passed")
