//! `rulebook lsp`: a language server for rules text over stdio (LSP, JSON-RPC), on rust-analyzer's
//! `lsp-server`. It answers with the checker's own diagnostics for the whole folder as documents
//! open and change, the outline of a file, and, for a name, its declaration (go to definition)
//! and what it is (hover). Every request is answered, a malformed one with an error: the server
//! never stops on what an editor sends, only on `shutdown` and `exit`.

mod world;

use super::CliError;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, PublishDiagnostics};
use lsp_types::request::{Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest};
use lsp_types::{
    DocumentSymbolResponse, GotoDefinitionResponse, Hover, HoverContents, HoverProviderCapability, InitializeParams, MarkupContent,
    MarkupKind, OneOf, PublishDiagnosticsParams, ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind,
};
use std::path::{Path, PathBuf};
use world::World;

/// Runs the server on stdin and stdout until the editor says `exit`. `rules`: the rules folder;
/// else the workspace's `rules-src/` if it has one, else the workspace folder itself.
pub fn run(rules: Option<&Path>) -> Result<(), CliError> {
    let (connection, io) = Connection::stdio();
    let served = serve(&connection, rules);
    drop(connection);
    let joined = io.join();
    served.and(joined.map_err(|e| CliError {
        message: format!("language server: {e}"),
        code: 1,
    }))
}

fn serve(connection: &Connection, rules: Option<&Path>) -> Result<(), CliError> {
    let failed = |e: &dyn std::fmt::Display| CliError {
        message: format!("language server: {e}"),
        code: 1,
    };
    let caps = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        completion_provider: Some(lsp_types::CompletionOptions::default()),
        ..Default::default()
    };
    let caps = serde_json::to_value(caps).map_err(|e| failed(&e))?;
    let init = connection.initialize(caps).map_err(|e| {
        if e.channel_is_disconnected() {
            failed(&"the editor closed the connection before `initialize`")
        } else {
            failed(&e)
        }
    })?;
    let params: InitializeParams = serde_json::from_value(init).unwrap_or_default();
    let mut world = World {
        root: rules.map(Path::to_path_buf).unwrap_or_else(|| workspace_rules(&params)),
        open: Default::default(),
    };
    for msg in &connection.receiver {
        match msg {
            Message::Request(req) => {
                if connection.handle_shutdown(&req).map_err(|e| failed(&e))? {
                    return Ok(());
                }
                let resp = answer(&world, req);
                connection.sender.send(Message::Response(resp)).map_err(|e| failed(&e))?;
            }
            Message::Notification(n) => {
                if changed(&mut world, n) {
                    publish(connection, &world).map_err(|e| failed(&e))?;
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}

/// The rules folder of the workspace the editor opened.
fn workspace_rules(params: &InitializeParams) -> PathBuf {
    let folder = params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .and_then(|f| world::path_of(&f.uri))
        .or_else(|| {
            #[expect(deprecated, reason = "editors that send no workspace folders send the root URI")]
            params.root_uri.as_ref().and_then(world::path_of)
        })
        .unwrap_or_else(|| PathBuf::from("."));
    let inside = folder.join("rules-src");
    if inside.is_dir() {
        inside
    } else {
        folder
    }
}

/// A document opened, changed, saved or closed: the world takes it in. Does it change what the
/// checker says?
fn changed(world: &mut World, n: Notification) -> bool {
    use lsp_types::notification::Notification as _;
    match n.method.as_str() {
        DidOpenTextDocument::METHOD => match serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params) {
            Ok(p) => world::path_of(&p.text_document.uri)
                .map(|path| world.open.insert(path, p.text_document.text))
                .is_some(),
            Err(_) => false,
        },
        DidChangeTextDocument::METHOD => match serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params) {
            // Full sync: the last change is the whole text.
            Ok(p) => match (world::path_of(&p.text_document.uri), p.content_changes.into_iter().last()) {
                (Some(path), Some(c)) => {
                    world.open.insert(path, c.text);
                    true
                }
                _ => false,
            },
            Err(_) => false,
        },
        DidCloseTextDocument::METHOD => match serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params) {
            Ok(p) => world::path_of(&p.text_document.uri).map(|path| world.open.remove(&path)).is_some(),
            Err(_) => false,
        },
        DidSaveTextDocument::METHOD => true,
        _ => false,
    }
}

/// The diagnostics of every file of the folder, a clean file's as an empty list.
fn publish(connection: &Connection, world: &World) -> Result<(), String> {
    use lsp_types::notification::Notification as _;
    for (path, diagnostics) in world.diagnostics() {
        let Some(uri) = world::uri_of(&path) else { continue };
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version: None,
        };
        let note = Notification::new(PublishDiagnostics::METHOD.to_string(), params);
        connection.sender.send(Message::Notification(note)).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The answer to one request: a result, or an error saying what was wrong with it.
fn answer(world: &World, req: Request) -> Response {
    use lsp_types::request::Request as _;
    let id = req.id.clone();
    let result = match req.method.as_str() {
        HoverRequest::METHOD => serde_json::from_value::<lsp_types::HoverParams>(req.params)
            .map_err(|e| e.to_string())
            .map(|p| serde_json::to_value(hover(world, &p.text_document_position_params)).unwrap_or_default()),
        GotoDefinition::METHOD => serde_json::from_value::<lsp_types::GotoDefinitionParams>(req.params)
            .map_err(|e| e.to_string())
            .map(|p| serde_json::to_value(definition(world, &p.text_document_position_params)).unwrap_or_default()),
        Completion::METHOD => serde_json::from_value::<lsp_types::CompletionParams>(req.params)
            .map_err(|e| e.to_string())
            .map(|p| serde_json::to_value(completion(world, &p.text_document_position.text_document.uri)).unwrap_or_default()),
        DocumentSymbolRequest::METHOD => serde_json::from_value::<lsp_types::DocumentSymbolParams>(req.params)
            .map_err(|e| e.to_string())
            .map(|p| serde_json::to_value(outline(world, &p.text_document.uri)).unwrap_or_default()),
        other => {
            return Response::new_err(
                id,
                ErrorCode::MethodNotFound as i32,
                format!("`{other}` is not answered by this server"),
            );
        }
    };
    match result {
        Ok(v) => Response::new_ok(id, v),
        Err(e) => Response::new_err(id, ErrorCode::InvalidParams as i32, e),
    }
}

/// The text of a document: the editor's if open, else the disk's.
fn text_of(world: &World, path: &Path) -> Option<String> {
    world.open.get(path).cloned().or_else(|| std::fs::read_to_string(path).ok())
}

fn hover(world: &World, at: &lsp_types::TextDocumentPositionParams) -> Option<Hover> {
    let path = world::path_of(&at.text_document.uri)?;
    let text = text_of(world, &path)?;
    let (decls, _) = world.decls();
    let d = world::find(&decls, &path, &text, at.position)?;
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: world::hover_text(d),
        }),
        range: None,
    })
}

fn definition(world: &World, at: &lsp_types::TextDocumentPositionParams) -> Option<GotoDefinitionResponse> {
    let path = world::path_of(&at.text_document.uri)?;
    let text = text_of(world, &path)?;
    let (decls, texts) = world.decls();
    let d = world::find(&decls, &path, &text, at.position)?;
    world::location(d, &texts).map(GotoDefinitionResponse::Scalar)
}

fn outline(world: &World, uri: &lsp_types::Uri) -> Option<DocumentSymbolResponse> {
    let path = world::path_of(uri)?;
    let (decls, texts) = world.decls();
    Some(DocumentSymbolResponse::Nested(world::symbols(&decls, &texts, &path)))
}

/// The names a rules file can use: its system's declarations (and enum variants, fields), with
/// what each is, and the words of the language.
fn completion(world: &World, uri: &lsp_types::Uri) -> Option<lsp_types::CompletionResponse> {
    let path = world::path_of(uri)?;
    let (decls, _) = world.decls();
    Some(lsp_types::CompletionResponse::Array(world::completions(&decls, &path)))
}
