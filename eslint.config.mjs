// The linter of the components' JavaScript (ui/components) and its tests (tests/js): `npm ci`, then
// `npx eslint`. Versions are pinned in package.json and package-lock.json.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", "test-artifacts/"] },
  js.configs.recommended,
  {
    files: ["ui/components/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
  },
  {
    files: ["tests/js/**/*.mjs", "eslint.config.mjs"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node } },
  },
  {
    rules: {
      eqeqeq: ["error", "always"],
      "no-var": "error",
      "prefer-const": "error",
      "no-shadow": "error",
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "all" }],
      "no-implicit-globals": "error",
      "no-eval": "error",
      "no-implied-eval": "error",
      "no-new-func": "error",
    },
  },
];
