"""The app's tabs, one package each: ``layout`` builds and wires the Gradio components, ``handlers``
holds the plain functions behind the events (testable without a browser).

Nothing is imported here, so a test or tool that needs only a tab's handlers does not pay for
building every tab."""
