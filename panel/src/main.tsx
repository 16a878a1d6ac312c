// Shared styles first: the features' own styles come after them and may refine them.
import './styles/theme.css';
import './styles/layout.css';
import './styles/forms.css';
import './styles/data.css';
import './styles/parts.css';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { ApiError, whenSignedOut } from './lib/api.ts';
import { authKey } from './lib/session.ts';

const client: QueryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // The live stream says when data changed; this is only the fallback when it is down.
      staleTime: 30_000,
      refetchOnWindowFocus: true,
      retry: (count, error) =>
        !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
    },
    mutations: { retry: false },
  },
});

// A 401 anywhere (a read or a save) means the session ended: ask again who is signed in, which shows
// the sign-in page.
whenSignedOut(() => void client.invalidateQueries({ queryKey: authKey }));

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={client}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
