// Lint rules (docs/testing.md, "Lint and format"): typescript-eslint's recommended rules for every
// TypeScript file, React's hooks rules for the console. Formatting is Prettier's (.prettierrc.json),
// not the linter's.
import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'apps/console/src/api/schema.gen.ts', 'test/fixtures/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Benchmarks, scripts and the bin run on Node; the console's browser code is TypeScript (no-undef is off there).
  { files: ['**/*.{js,mjs,cjs}'], languageOptions: { globals: { ...globals.node } } },
  { files: ['apps/console/**/*.{ts,tsx}'], languageOptions: { globals: { ...globals.browser } } },
  {
    rules: {
      // A leading underscore names what is left out on purpose (`const { type: _type, ...rest } = …`).
      // `catch {}`: "not yet, try again" in a polling loop.
      'no-empty': ['error', { allowEmptyCatch: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['apps/console/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    // The rules of hooks. Not the React Compiler's rules (set-state-in-effect, refs, purity), which
    // version 7's preset adds: the console is not compiled by it.
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
);
