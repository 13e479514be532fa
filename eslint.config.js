// Lint gate for `npm test`: typescript-eslint's recommended rules, kept light so the
// signal is real problems (unused code, floating promises are caught by tsc's strictness).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'docs/**', 'examples/**/data/**', '.tmp/**', 'bench/.data/**', 'core/flight/generated/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
);
