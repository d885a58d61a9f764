// @ts-check
/**
 * ESLint for the whole tree (`npm run lint`, part of `npm test`); docs/contributing.md says what
 * runs and why. Layout is Prettier's job (.prettierrc.json): no stylistic rules here.
 */
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // Installed tools, data, and what sweeps and benchmarks write (see .gitignore).
  globalIgnores(['.tools/', '.data/', 'out/', 'bench-out/', '**/__pycache__/']),
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // The point of linting here: every promise of an activity, a child or a server is awaited,
      // returned or handed to a .catch (`void` says on purpose, with a comment saying why).
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Abort reasons (`any`) and caught values (`unknown`) are passed on as they are.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // `_name` is the tree's way to say a parameter or a destructured member is left out on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // `async` without `await` is deliberate here: it makes a throw a rejection, and interfaces
      // (activities, stores) ask for promises.
      '@typescript-eslint/require-await': 'off',
      // `any` enters only through JSON.parse and library typings, and is validated by zod at the
      // boundaries; these rules would ask for casts, not checks (500 findings, 470 of them in tests).
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Error messages and the report render config and row values whatever they are, on purpose.
      '@typescript-eslint/no-base-to-string': 'off',
      // Redundant `!` and `as` are harmless; removing the 62 of them is a separate clean-up.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests hand invalid input to the code on purpose, and run activities unbound as Temporal does.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    rules: {
      // Error messages here name the file, line or field and include the cause's own message.
      'preserve-caught-error': 'off',
    },
  },
  {
    plugins: { 'import-x': importX },
    rules: {
      'import-x/first': 'error',
      'import-x/no-duplicates': 'error',
    },
  },
  {
    // The sandbox's plain CommonJS runners (started by node inside the jail, never imported by the
    // TypeScript): the JavaScript rules, without type information.
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', performance: 'readonly' },
    },
  },
);
